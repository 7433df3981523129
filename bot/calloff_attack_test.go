package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// ops is a supergroup with a real-shaped 64-bit id.
var ops = telegramtest.Chat{ID: -1001234567890123, Type: "supergroup", Title: "Ops"}

// runReplica starts a bot named id on the database at url, beside any
// other started on it, until the test ends.
func runReplica(t *testing.T, tg *telegramtest.Server, url, id string, answerer bot.Answerer) *logBuffer {
	t.Helper()
	return runReplicaWith(t, tg, url, id, answerer, nil)
}

// runReplicaWith is runReplica, with tools (none when nil).
func runReplicaWith(t *testing.T, tg *telegramtest.Server, url, id string, answerer bot.Answerer, tools *toolbus.Registry) *logBuffer {
	t.Helper()
	logs := &logBuffer{}
	b, err := bot.New(bot.Config{Token: token, APIURL: tg.URL(), Workers: 2, PollTimeout: 2 * time.Second,
		CallTimeout: 5 * time.Second, HistoryLimit: 10, MaxAttempts: 5, PersonBurst: 1000, ReplicaID: id, Tools: tools},
		slog.New(slog.NewTextHandler(logs, nil)).With("replica", id), memorytest.OpenURL(t, url), answerer, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run %s: %v", id, err)
		}
	})
	return logs
}

func saidIn(tg *telegramtest.Server, chat int64, text string) int {
	n := 0
	for _, m := range tg.BotMessages(chat) {
		if strings.Contains(m.Text, text) {
			n++
		}
	}
	return n
}

// Two replicas share the database. The one that runs a turn has the chat
// taken over by the other while its model thinks: its turn is called off,
// and the other answers the question once — nothing is marked failed,
// nobody is told something went wrong, the answer comes once, and no
// message of the turn called off is left saying it is still thinking.
func TestCallOffAttackTheOtherReplicaAnswersOnce(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	ids := [2]string{"replica-east", "replica-west"}
	type call struct {
		replica string
		cause   error
	}
	var mu sync.Mutex
	asked := 0
	calledOff := make(chan call, 1)
	answerer := func(self, other string) answerFunc {
		return func(ctx context.Context, in agent.Input) (agent.Output, error) {
			mu.Lock()
			asked++
			first := asked == 1
			mu.Unlock()
			if !first {
				return agent.Output{Text: "the one answer, from " + self}, nil
			}
			// This replica froze, as far as the other knows: it takes the chat.
			memorytest.Exec(t, url, fmt.Sprintf(`update chat_leases set replica = '%s', until = now() + interval '1 hour' where chat_id = %d`, other, ops.ID))
			select {
			case <-ctx.Done():
				calledOff <- call{self, context.Cause(ctx)}
				return agent.Output{}, ctx.Err()
			case <-time.After(30 * time.Second):
				calledOff <- call{self, nil}
				return agent.Output{Text: "an answer from the replica that lost the chat"}, nil
			}
		}
	}
	east := runReplica(t, tg, url, ids[0], answerer(ids[0], ids[1]))
	west := runReplica(t, tg, url, ids[1], answerer(ids[1], ids[0]))
	waitFor(t, tg, "both replicas alive", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where seen_at > now() - interval '2 seconds'`) == 2
	})
	tg.SendText(ops, alice, "@ryo_test_bot how many disks are degraded?")
	c := <-calledOff
	if c.cause == nil {
		t.Fatalf("%s's model call went on for 30 s after its chat was taken over", c.replica)
	}
	if !errors.Is(c.cause, memory.ErrLeaseLost) {
		t.Errorf("%s's turn was ended for %v, not for its chat taken over", c.replica, c.cause)
	}
	waitFor(t, tg, "the other replica's answer", func() bool { return saidIn(tg, ops.ID, "the one answer") > 0 })
	waitFor(t, tg, "the update done", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state = 'done'`) == 1
	})
	logs := "east:\n" + east.String() + "\nwest:\n" + west.String()
	if n := saidIn(tg, ops.ID, "the one answer"); n != 1 {
		t.Errorf("the answer came %d times", n)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed", n)
	}
	for _, m := range tg.BotMessages(ops.ID) {
		if strings.Contains(m.Text, "went wrong") || strings.Contains(m.Text, "lost the chat") {
			t.Errorf("the bot said %q", m.Text)
		}
	}
	if strings.Contains(logs, "level=ERROR") {
		t.Errorf("an error was logged:\n%s", logs)
	}
	if t.Failed() {
		t.Logf("the chat: %+v\n%s", tg.BotMessages(ops.ID), logs)
	}
	t.Logf("the chat shows: %q", texts(tg.BotMessages(ops.ID)))
}

func texts(ms []telegramtest.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// A lone replica whose connections are all cut while its model thinks
// (the database restarted) does not call its own turn off: no other
// replica took the chat, and the model's answer is delivered.
func TestCallOffAttackALoneReplicaNeverCallsOffItsOwnTurn(t *testing.T) {
	u, err := neturl.Parse(memorytest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	name := "calloff_" + q.Get("search_path")
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	url := u.String()
	tg := newTelegram(t, false)
	var mu sync.Mutex
	asked := 0
	cancelled := make(chan error, 1)
	logs := runReplica(t, tg, url, "replica-alone", answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		mu.Lock()
		asked++
		first := asked == 1
		mu.Unlock()
		if first {
			cut := memorytest.Count(t, url, `select count(pg_terminate_backend(pid)) from pg_stat_activity
				where application_name = $1 and pid <> pg_backend_pid()`, name)
			if cut == 0 {
				t.Error("no connection cut")
			}
			// The model thinks on until heartbeats after the cut (it
			// reconnected) renewed the chat's lease three times.
			until := func() int {
				return memorytest.Count(t, url, `select coalesce((select (extract(epoch from until) * 1e6)::bigint from chat_leases
					where chat_id = $1 and replica = 'replica-alone'), 0)`, ops.ID)
			}
			last, renewed := until(), 0
			wait, stop := context.WithTimeout(context.Background(), 20*time.Second)
			defer stop()
			err := tg.Wait(wait, func() bool {
				if ctx.Err() != nil {
					return true
				}
				if now := until(); now > last {
					last, renewed = now, renewed+1
				}
				return renewed >= 3
			})
			if ctx.Err() != nil {
				cancelled <- context.Cause(ctx)
				return agent.Output{}, ctx.Err()
			}
			if err != nil {
				t.Errorf("the chat's lease was not renewed after the cut: %v", err)
			}
		}
		cancelled <- nil
		return agent.Output{Text: "the answer"}, nil
	}))
	tg.SendText(ops, alice, "@ryo_test_bot is the backup done?")
	if err := <-cancelled; err != nil {
		t.Fatalf("the lone replica called off its own turn: %v\n%s", err, logs.String())
	}
	waitFor(t, tg, "the answer", func() bool { return saidIn(tg, ops.ID, "the answer") > 0 })
	waitFor(t, tg, "the update done", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state = 'done'`) == 1
	})
	if strings.Contains(logs.String(), "another replica took") || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the lone replica ended or failed its turn:\n%s", logs.String())
	}
}

// Two replicas share the database. A button press runs, on its own lane,
// on the replica holding its chat, and waits there for the database; the
// other replica takes the chat over meanwhile. The press called off says
// nothing; the other replica answers it, once, as it would have been
// answered — no spinner is left turning, nothing is marked failed.
func TestCallOffAttackAPressCalledOffIsAnsweredByTheOtherReplica(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	ids := [2]string{"replica-east", "replica-west"}
	never := answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		return agent.Output{Text: "no question was asked"}, nil
	})
	logs := map[string]*logBuffer{ids[0]: runReplica(t, tg, url, ids[0], never), ids[1]: runReplica(t, tg, url, ids[1], never)}
	all := func() string { return "east:\n" + logs[ids[0]].String() + "\nwest:\n" + logs[ids[1]].String() }
	waitFor(t, tg, "both replicas alive", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where seen_at > now() - interval '2 seconds'`) == 2
	})
	tg.SendText(ops, alice, "the nightly backup failed again") // the chat becomes known; kept as context
	waitFor(t, tg, "the message kept", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state = 'done'`) == 1
	})
	ctx := context.Background()
	lock, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close(context.Background()) })
	if _, err := lock.Exec(ctx, `begin; lock table actions in access exclusive mode`); err != nil {
		t.Fatal(err)
	}
	query := tg.PressForged(ops.ID, alice, 1, "act:QUJDREVGR0hJSktM:y")
	waitFor(t, tg, "the press waiting for the database", func() bool {
		return memorytest.Count(t, url, `select count(*) from pg_locks where not granted and relation = 'actions'::regclass`) > 0
	})
	holder := ""
	waitFor(t, tg, "the press's replica", func() bool {
		holder = ""
		_ = lock.QueryRow(ctx, `select coalesce((select replica from chat_leases where chat_id = $1 and until > now()), '')`, ops.ID).Scan(&holder)
		return holder != ""
	})
	other := ids[0]
	if holder == ids[0] {
		other = ids[1]
	}
	memorytest.Exec(t, url, fmt.Sprintf(`update chat_leases set replica = '%s', until = now() + interval '1 hour' where chat_id = %d`, other, ops.ID))
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := tg.Wait(wctx, func() bool { return strings.Contains(logs[holder].String(), "another replica took this update") }); err != nil {
		rows, _ := lock.Query(ctx, `select coalesce(application_name, ''), state, coalesce(wait_event_type, ''), left(query, 200) from pg_stat_activity where datname = current_database()`)
		for rows.Next() {
			var a, b, c, d string
			_ = rows.Scan(&a, &b, &c, &d)
			t.Logf("%s | %s | %s | %s", a, b, c, d)
		}
		rows.Close()
		t.Fatalf("the press was not called off (holder %s): %v\n%s", holder, err, all())
	}
	if _, err := lock.Exec(ctx, `commit`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the press answered", func() bool { _, ok := tg.CallbackAnswer(query); return ok })
	waitFor(t, tg, "the press done", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state = 'done'`) == 2
	})
	a, _ := tg.CallbackAnswer(query)
	if !strings.Contains(a.Text, "no longer works") {
		t.Errorf("the press was answered %q; want the answer to a press for no action", a.Text)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed", n)
	}
	if strings.Contains(all(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", all())
	}
	if t.Failed() {
		t.Logf("%s", all())
	}
}

// Two replicas share the database. The model of the replica running a turn
// has answered, and the replica is storing the answer — held up by the
// database — when the other replica takes the chat over and a heartbeat
// calls the turn off. The question is answered once, by one of them, and
// the update is done: not failed, not answered twice, not left unanswered.
func TestCallOffAttackCalledOffWhileStoringTheAnswerItIsAnsweredOnce(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	ids := [2]string{"replica-east", "replica-west"}
	ctx := context.Background()
	lock, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close(context.Background()) })
	micros := func() int {
		return memorytest.Count(t, url, `select (extract(epoch from clock_timestamp()) * 1e6)::bigint`)
	}
	var mu sync.Mutex
	asked := 0
	first, second := make(chan string, 1), make(chan string, 1)
	answerer := func(self, other string) answerFunc {
		return func(ctx context.Context, in agent.Input) (agent.Output, error) {
			mu.Lock()
			asked++
			n := asked
			mu.Unlock()
			switch n {
			case 1:
				if _, err := lock.Exec(context.Background(), `begin; lock table turns in exclusive mode`); err != nil {
					t.Error(err)
				}
				memorytest.Exec(t, url, fmt.Sprintf(`update chat_leases set replica = '%s', until = now() + interval '1 hour' where chat_id = %d`, other, ops.ID))
				first <- self
				return agent.Output{Text: "the answer, from " + self}, nil
			case 2:
				second <- self
			}
			return agent.Output{Text: "the answer, from " + self}, nil
		}
	}
	east := runReplica(t, tg, url, ids[0], answerer(ids[0], ids[1]))
	west := runReplica(t, tg, url, ids[1], answerer(ids[1], ids[0]))
	all := func() string { return "east:\n" + east.String() + "\nwest:\n" + west.String() }
	waitFor(t, tg, "both replicas alive", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where seen_at > now() - interval '2 seconds'`) == 2
	})
	tg.SendText(ops, alice, "@ryo_test_bot which node runs the scheduler?")
	holder := <-first
	flipped := micros()
	waitFor(t, tg, "a heartbeat of the first replica after the chat was taken", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where id = $1 and seen_at > to_timestamp($2::bigint / 1e6) + interval '100 milliseconds'`, holder, flipped) > 0
	})
	select {
	case <-second:
	case <-time.After(20 * time.Second):
		t.Log("the other replica did not ask its model while the answer was held up")
	}
	if _, err := lock.Exec(ctx, `commit`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the update done", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state in ('done', 'failed')`) == 1
	})
	waitFor(t, tg, "an answer", func() bool { return saidIn(tg, ops.ID, "the answer, from") > 0 })
	if n := saidIn(tg, ops.ID, "the answer, from"); n != 1 {
		t.Errorf("the question was answered %d times: %q", n, texts(tg.BotMessages(ops.ID)))
	}
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed", n)
	}
	for _, m := range tg.BotMessages(ops.ID) {
		if strings.Contains(m.Text, "went wrong") {
			t.Errorf("the bot said %q", m.Text)
		}
	}
	if strings.Contains(all(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", all())
	}
	t.Logf("the chat shows: %q", texts(tg.BotMessages(ops.ID)))
	if t.Failed() {
		t.Logf("%s", all())
	}
}

// shredder is a tool that destroys a file for good, and counts its runs.
type shredder struct {
	mu   sync.Mutex
	runs []string
}

func (s *shredder) registry(t *testing.T) *toolbus.Registry {
	return shredTool(t, func(_ context.Context, name string) (any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.runs = append(s.runs, name)
		return map[string]any{"shredded": name}, nil
	})
}

// shredTool is a registry of one destructive tool, shred_file, which runs
// shred on the name of the file it is asked to destroy.
func shredTool(t *testing.T, shred func(ctx context.Context, name string) (any, error)) *toolbus.Registry {
	t.Helper()
	r := toolbus.NewRegistry()
	err := r.Register(toolbus.Spec{Name: "shred_file", Description: "Destroys one of the team's files for good.",
		Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Shred the old payroll export.", Arguments: json.RawMessage(`{"name":"payroll.csv"}`)}},
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`),
		Effect: toolbus.Destructive,
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			var a struct{ Name string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return shred(ctx, a.Name)
		})})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// askToShred is the model's answer that asks to shred payroll-2026.csv
// once the person confirms, for the turn of in.
func askToShred(in agent.Input) agent.Output {
	args := json.RawMessage(`{"name":"payroll-2026.csv"}`)
	return agent.Output{Text: "I'll shred payroll-2026.csv once you confirm.", Held: &agent.Held{
		Call:   toolbus.Call{ID: "call-1", Tool: "shred_file", Args: args, Key: toolbus.Key(in.UpdateID, 0, "shred_file", args)},
		Reason: toolbus.HoldDestructive}}
}

func (s *shredder) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// A confirmed action's conversation goes on in its chat's queue, behind a
// turn still running there. Another replica takes the chat over: the turn
// running is called off, and the other replica runs the chat's updates —
// the press among them, whose action it runs. The replica that lost the
// chat must not run the action as well: the press waiting in its queue is
// the other replica's now, as much as the turn that was running.
func TestCallOffAttackAConfirmedActionWaitingInALostChatIsNotRunHere(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	memorytest.OpenURL(t, url) // the schema, made
	replicaAliveElsewhere(t, url, 45)
	shred := &shredder{}
	var mu sync.Mutex
	asked := 0
	running := make(chan struct{}, 1)
	logs := runReplicaWith(t, tg, url, "replica-here", answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		mu.Lock()
		asked++
		n := asked
		mu.Unlock()
		switch n {
		case 1:
			return askToShred(in), nil
		case 2: // the turn running when the chat is taken over
			running <- struct{}{}
			<-ctx.Done()
			return agent.Output{}, ctx.Err()
		}
		return agent.Output{Text: "Shredded."}, nil
	}), shred.registry(t))
	waitFor(t, tg, "a heartbeat that sees the other replica", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where id = 'replica-here' and seen_at > now() - interval '1 second'`) > 0
	})
	tg.SendText(ops, alice, "@ryo_test_bot shred the old payroll export")
	prompt, yes := confirmationPrompt(t, tg, ops.ID)
	tg.SendText(ops, alice, "@ryo_test_bot and how much disk does that free?")
	<-running
	query, err := tg.Press(ops.ID, alice, prompt.ID, yes)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the press confirmed, its conversation waiting behind the running turn", func() bool {
		a, ok := tg.CallbackAnswer(query)
		return ok && strings.Contains(a.Text, "Confirmed") &&
			memorytest.Count(t, url, `select count(*) from actions where state = 'confirmed'`) == 1
	})
	takeOver(t, url, ops.ID)
	waitFor(t, tg, "the running turn and the press to end here", func() bool {
		return shred.count() > 0 || strings.Count(logs.String(), "another replica took this update") >= 2
	})
	if n := shred.count(); n != 0 {
		t.Errorf("the replica that lost the chat ran the action %d times; the replica holding the chat runs it", n)
	}
	if n := memorytest.Count(t, url, `select count(*) from actions where state <> 'confirmed'`); n != 0 {
		t.Errorf("the replica that lost the chat moved the action on: %d actions no longer confirmed", n)
	}
	if t.Failed() {
		t.Logf("%s", logs.String())
	}
}

// A confirmed action's tool already running when its chat is taken over
// runs to its end, and its outcome is kept: cut short, a destructive tool
// could leave its work half done, and the replica holding the chat would
// find the action running and have to ask the person again. What comes
// after it here — the conversation going on — is called off once it ends.
func TestAnActionsToolRunningWhenItsChatIsTakenOverRunsToItsEnd(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	memorytest.OpenURL(t, url) // the schema, made
	replicaAliveElsewhere(t, url, 46)
	cutShort := make(chan bool, 1)
	tools := shredTool(t, func(ctx context.Context, _ string) (any, error) {
		// Halfway through, the chat is taken over, and two heartbeats
		// go by: the first finds the chat taken, the second comes
		// after the first's findings were acted on.
		takeOver(t, url, ops.ID)
		waitForBeats(t, tg, url, "replica-here", 2)
		cutShort <- ctx.Err() != nil
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return map[string]any{"shredded": "payroll-2026.csv"}, nil
	})
	var mu sync.Mutex
	asked := 0
	logs := runReplicaWith(t, tg, url, "replica-here", answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		mu.Lock()
		asked++
		n := asked
		mu.Unlock()
		if n == 1 {
			return askToShred(in), nil
		}
		return agent.Output{Text: "Shredded."}, nil
	}), tools)
	waitFor(t, tg, "a heartbeat that sees the other replica", func() bool { return lastBeat(t, url, "replica-here") != "" })
	tg.SendText(ops, alice, "@ryo_test_bot shred the old payroll export")
	prompt, yes := confirmationPrompt(t, tg, ops.ID)
	if _, err := tg.Press(ops.ID, alice, prompt.ID, yes); err != nil {
		t.Fatal(err)
	}
	if <-cutShort {
		t.Error("the tool running when the chat was taken over was cut short")
	}
	waitFor(t, tg, "the action to end", func() bool {
		return memorytest.Count(t, url, `select count(*) from actions where state in ('executed', 'interrupted')`) == 1
	})
	if n := memorytest.Count(t, url, `select count(*) from actions where state = 'executed'`); n != 1 {
		t.Errorf("the action ran to its end but %d actions are kept as executed", n)
	}
	if t.Failed() {
		t.Logf("%s", logs.String())
	}
}
