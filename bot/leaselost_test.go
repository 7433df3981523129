package bot_test

import (
	"context"
	"fmt"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A turn whose chat another replica took over while it ran (this one
// froze, or lost the database for longer than a lease lasts) leaves the
// update to that replica: it neither marks it failed nor tells the person
// something went wrong — the other replica is answering them.
func TestATurnWhoseChatWasTakenOverLeavesItToTheOtherReplica(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		// Meanwhile another replica takes the chat over.
		memorytest.Exec(t, url, fmt.Sprintf(`insert into replicas (id, lock_key) values ('elsewhere', 42)
			on conflict do nothing;
			update chat_leases set replica = 'elsewhere', until = now() + interval '1 hour' where chat_id = %d`, dm.ID))
		return agent.Output{Text: "an answer the other replica gives instead"}, nil
	}), 5)
	tg.SendText(dm, alice, "hello")
	waitFor(t, tg, "the turn to end here", func() bool {
		return strings.Contains(logs.String(), "another replica took this update")
	})
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed; the other replica answers them", n)
	}
	for _, m := range tg.BotMessages(dm.ID) {
		if strings.Contains(m.Text, "went wrong") {
			t.Errorf("the person was told something went wrong: %q", m.Text)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", logs.String())
	}
}

// With other replicas alive, a replica that can no longer be sure it
// holds a chat — here a heartbeat found it taken over while the turn ran,
// as when it froze for longer than a lease lasts — sends nothing more in
// it: the replica holding it now answers there, and an edit or answer from
// here would land over its answer or beside it.
func TestAReplicaThatLostItsChatSendsNothingMoreInIt(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	replicaAliveElsewhere(t, url, 42)
	micros := func() int {
		return memorytest.Count(t, url, `select (extract(epoch from clock_timestamp()) * 1e6)::bigint`)
	}
	beatSince := func(at int) func() bool { // this replica's heartbeat ran after at
		return func() bool {
			return memorytest.Count(t, url, `select count(*) from replicas where id <> 'elsewhere' and seen_at > to_timestamp($1::bigint / 1e6)`, at) > 0
		}
	}
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		takeOver(t, url, dm.ID)
		waitFor(t, tg, "a heartbeat after the chat was taken over", beatSince(micros()))
		return agent.Output{Text: "an answer from the replica that lost the chat"}, nil
	}), 5)
	waitFor(t, tg, "a heartbeat that sees the other replica", beatSince(micros()))
	tg.SendText(dm, alice, "hello")
	waitFor(t, tg, "the turn to end here", func() bool { return strings.Contains(logs.String(), "another replica took this update") })
	for _, m := range tg.BotMessages(dm.ID) {
		if strings.Contains(m.Text, "lost the chat") || strings.Contains(m.Text, "went wrong") {
			t.Errorf("the replica that lost the chat said %q in it", m.Text)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", logs.String())
	}
}

// A turn whose chat a heartbeat found taken over ends then, not when its
// answer is ready: its model call is given up at once, so that a local
// model server (one request at a time, often) is not kept busy for minutes
// on an answer nobody will see while the other replica asks it the same;
// and the chat is free here again should that replica fail in its turn.
func TestATurnWhoseChatWasTakenOverIsCalledOffAtOnce(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	replicaAliveElsewhere(t, url, 43)
	calledOff := make(chan error, 1)
	logs := run(t, tg, db, answerFunc(func(ctx context.Context, _ agent.Input) (agent.Output, error) {
		takeOver(t, url, dm.ID)
		select { // the model thinking, for longer than the test waits
		case <-ctx.Done():
			calledOff <- ctx.Err()
			return agent.Output{}, ctx.Err()
		case <-time.After(30 * time.Second):
			calledOff <- nil
			return agent.Output{Text: "an answer from the replica that lost the chat"}, nil
		}
	}), 5)
	tg.SendText(dm, alice, "hello")
	if err := <-calledOff; err == nil {
		t.Fatal("the model call went on for 30 s after a heartbeat found the chat taken over")
	}
	waitFor(t, tg, "the turn to end here", func() bool { return strings.Contains(logs.String(), "another replica took this update") })
	if strings.Contains(logs.String(), "interrupted by shutdown") || strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the turn called off was logged as something else:\n%s", logs.String())
	}
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed; the other replica answers them", n)
	}
}

// A lone replica whose heartbeats are held up for longer than fenceAfter
// (its database restarting, or a long lock) cannot be sure of its chats,
// and the turn then answering ends, to run again. Nobody took the chat: the
// turn runs again before the messages that came after it in the chat, as
// it would have run had it not ended — the answers come in the order the
// messages came, and the earlier message does not wait behind every later
// one while the chat stays busy.
func TestATurnFencedWhileTheDatabaseWasAwayRunsAgainBeforeTheMessagesAfterIt(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	beats, opens := connect(), connect() // hold up the heartbeat; the second turn before it speaks
	exec := func(c *pgx.Conn, sql string) {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Error(err)
		}
	}
	var mu sync.Mutex
	asked := 0
	logs := run(t, tg, db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
		q := in.History[len(in.History)-1].Text
		mu.Lock()
		asked++
		first := asked == 1
		mu.Unlock()
		if first {
			tg.SendText(dm, alice, "two")
			waitFor(t, tg, "the second message stored", func() bool {
				return memorytest.Count(t, url, `select count(*) from updates where state in ('pending', 'processing')`) == 2
			})
			exec(beats, `begin; lock table replicas in exclusive mode`)
			exec(opens, `begin; lock table messages in exclusive mode`)
			waitFor(t, tg, "no heartbeat for longer than fenceAfter", func() bool {
				return memorytest.Count(t, url, `select count(*) from replicas where seen_at > clock_timestamp() - interval '4500 milliseconds'`) == 0
			})
		}
		return agent.Output{Text: "answer to " + q}, nil
	}), 5)
	tg.SendText(dm, alice, "one")
	waitFor(t, tg, "the first turn refused", func() bool {
		return strings.Contains(logs.String(), "another replica took this update") || strings.Contains(logs.String(), "interrupted by an outage")
	})
	exec(beats, `commit`) // the database is back: a heartbeat renews the chat, which runs here
	waitFor(t, tg, "a heartbeat", func() bool {
		return memorytest.Count(t, url, `select count(*) from replicas where seen_at > clock_timestamp() - interval '1 second'`) > 0
	})
	exec(opens, `commit`)
	said := func(text string) int {
		for i, c := range tg.Calls("") {
			if c.Err == nil && strings.Contains(c.Params["text"], text) {
				return i
			}
		}
		return -1
	}
	waitFor(t, tg, "both answers", func() bool { return said("answer to one") >= 0 && said("answer to two") >= 0 })
	if one, two := said("answer to one"), said("answer to two"); one > two {
		t.Errorf("the first message was answered after the second (calls %d and %d)", one, two)
	}
}

// A lone replica whose database connections are all cut in the middle of
// a turn (the database restarted) answers the turn once, in its status
// message, tells nobody something went wrong, and marks nothing failed.
func TestALoneReplicaWhoseConnectionsWereCutAnswersOnce(t *testing.T) {
	u, err := neturl.Parse(memorytest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	// Its connections are named after its schema, and only they are cut:
	// other tests share the database.
	q := u.Query()
	name := "cut_" + q.Get("search_path")
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	url := u.String()
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	var mu sync.Mutex
	asked := 0
	logs := run(t, tg, db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
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
		}
		return agent.Output{Text: "the answer"}, nil
	}), 5)
	tg.SendText(dm, alice, "hello")
	waitFor(t, tg, "the answer", botSays(tg, "the answer"))
	waitFor(t, tg, "the update done", func() bool {
		return memorytest.Count(t, url, `select count(*) from updates where state = 'done'`) == 1
	})
	if got := tg.BotMessages(dm.ID); len(got) != 1 {
		t.Errorf("%d messages from the bot; want its answer only: %+v", len(got), got)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", logs.String())
	}
}

// replicaAliveElsewhere makes another replica, 'elsewhere', alive for the
// rest of the test: its row says it beat lately, and its lock, key, is
// held by a connection of its own, which it returns.
func replicaAliveElsewhere(t *testing.T, url string, key int) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close(context.Background()) })
	if _, err := other.Exec(ctx, `select pg_advisory_lock($1)`, key); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `insert into replicas (id, lock_key, seen_at) values ('elsewhere', $1, now() + interval '1 hour')`, key); err != nil {
		t.Fatal(err)
	}
	return other
}

// takeOver hands chat's lease to the replica 'elsewhere' for an hour.
func takeOver(t *testing.T, url string, chat int64) {
	t.Helper()
	memorytest.Exec(t, url, fmt.Sprintf(`update chat_leases set replica = 'elsewhere', until = now() + interval '1 hour' where chat_id = %d`, chat))
}

// lastBeat says when replica id last beat, in microseconds since the
// epoch; "" when it has not in the last ten seconds.
func lastBeat(t *testing.T, url, id string) string {
	t.Helper()
	if memorytest.Count(t, url, `select count(*) from replicas where id = $1 and seen_at > clock_timestamp() - interval '10 seconds'`, id) == 0 {
		return ""
	}
	return fmt.Sprint(memorytest.Count(t, url, `select (extract(epoch from seen_at) * 1e6)::bigint from replicas where id = $1`, id))
}

// waitForBeats waits until replica id has beaten n times more.
func waitForBeats(t *testing.T, tg *telegramtest.Server, url, id string, n int) {
	t.Helper()
	for range n {
		before := lastBeat(t, url, id)
		waitFor(t, tg, "a heartbeat", func() bool {
			now := lastBeat(t, url, id)
			return now != "" && now != before
		})
	}
}

// confirmationPrompt waits for the bot's prompt to confirm an action in
// chat, and returns it with its yes button's data.
func confirmationPrompt(t *testing.T, tg *telegramtest.Server, chat int64) (prompt telegramtest.Message, yes string) {
	t.Helper()
	waitFor(t, tg, "the confirmation prompt", func() bool {
		for _, m := range tg.BotMessages(chat) {
			for _, row := range m.Buttons() {
				for _, b := range row {
					if strings.HasPrefix(b.Data, "act:") && strings.HasSuffix(b.Data, ":y") {
						prompt, yes = m, b.Data
						return true
					}
				}
			}
		}
		return false
	})
	return prompt, yes
}
