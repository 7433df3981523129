package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// Three ryo processes share one database under load: many chats, groups
// among them, each asking several questions in a row, with the fake
// Telegram enforcing Telegram's flood limits. One replica is killed with
// SIGKILL in the middle of a turn, another stopped with SIGTERM in the
// middle of one; the last one standing finishes their work. Every question
// is answered exactly once, each chat's answers in the order asked, and
// Telegram never answers 429.
func TestThreeReplicasUnderLoadOneKilledOneStopped(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t, floodControl)
	h.env["RYO_LOG_LEVEL"] = "info"
	slow := newSlowQuestions()
	h.llm.Handle(slow.reply)
	t.Cleanup(func() {
		if t.Failed() {
			for _, tag := range []string{"k", "s"} {
				t.Logf("ryo's log lines naming the slow chat %s:\n%s", tag, linesNaming(h, slow.chat(tag).ID))
			}
		}
	})
	procs := map[string]*exec.Cmd{}
	for _, id := range []string{"r1", "r2", "r3"} {
		procs[id] = h.startReplica(bin, id)
	}
	h.waitForReplicas(3)

	const chats, turns = 24, 3
	var wg sync.WaitGroup
	asked := make([]telegramtest.Chat, chats)
	for i := range chats {
		user := telegramtest.NewUser(fmt.Sprintf("P%d", i), "")
		chat, mention := telegramtest.PrivateChat(user), ""
		if i%6 == 0 {
			chat, mention = telegramtest.NewSupergroup(fmt.Sprintf("G%d", i)), "@ryo_test_bot "
		}
		asked[i] = chat
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= turns; n++ {
				key := fmt.Sprintf("q%d.%d", chat.ID, n)
				h.tg.SendText(chat, user, mention+"please answer "+key)
				h.waitFor("the answer to "+key, func() bool { return answersTo(h.tg, chat.ID, key) > 0 })
			}
		}()
	}

	// A slow turn is cut by SIGKILL: its replica dies with it.
	killed := h.slowTurn(slow, "k", procs)
	if err := procs[killed].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	procs[killed].Wait()
	delete(procs, killed)
	h.waitFor("the killed turn answered elsewhere", func() bool { return answersTo(h.tg, slow.chat("k").ID, slow.key("k")) == 1 })
	t.Logf("a turn cut by SIGKILL was answered by another replica %v later", time.Since(cut).Round(time.Millisecond))
	// Another slow turn is cut by SIGTERM (no grace): it resumes elsewhere.
	stopped := h.slowTurn(slow, "s", procs)
	procs[stopped].Process.Signal(syscall.SIGTERM)
	cut = time.Now()
	if err := procs[stopped].Wait(); err != nil {
		t.Fatalf("the replica stopped with SIGTERM: %v; want a clean exit", err)
	}
	delete(procs, stopped)
	h.waitFor("the stopped turn answered elsewhere", func() bool { return answersTo(h.tg, slow.chat("s").ID, slow.key("s")) == 1 })
	t.Logf("a turn cut by SIGTERM was answered by another replica %v later", time.Since(cut).Round(time.Millisecond))
	slow.release()
	wg.Wait()

	for _, chat := range append(asked, slow.chat("k"), slow.chat("s")) {
		checkAnsweredOnceInOrder(t, h.tg, chat.ID)
	}
	if refused := h.tg.Refused(); len(refused) > 0 {
		t.Errorf("Telegram refused %d calls with 429, the first %s in chat %s", len(refused), refused[0].Method, refused[0].Params["chat_id"])
		for _, c := range h.tg.Calls("") {
			if c.Params["chat_id"] == refused[0].Params["chat_id"] {
				t.Logf("%s %s %v %q", c.At.Format("15:04:05.000"), c.Method, c.Err, c.Params["text"])
			}
		}
		all := h.tg.Calls("")
		for _, r := range refused {
			n := 0
			for _, c := range all {
				if c.Err == nil && c.Method != "getUpdates" && c.Method != "getMe" && c.At.After(r.At.Add(-time.Second)) && !c.At.After(r.At) {
					n++
				}
			}
			t.Logf("refused %s in %s at %s: %d calls in the second before", r.Method, r.Params["chat_id"], r.At.Format("15:04:05.000"), n)
		}
		for _, c := range all {
			if c.At.After(refused[0].At.Add(-2*time.Second)) && !c.At.After(refused[0].At) {
				t.Logf("  %s %s %s %v", c.At.Format("15:04:05.000"), c.Method, c.Params["chat_id"], c.Err)
			}
		}
		t.Log(h.logs.String()[max(0, len(h.logs.String())-20000):])
		for _, line := range strings.Split(h.logs.String(), "\n") {
			if strings.Contains(line, refused[0].Params["chat_id"]) && !strings.Contains(line, "turn answered") {
				t.Log(line)
			}
		}
	}
	h.waitFor("every update done", func() bool { return unfinishedUpdates(t, h.db()) == 0 })
	if !strings.Contains(h.logs.String(), "took over a chat from another replica") {
		t.Error("no replica said it took over a chat")
	}
	t.Logf("killed %s, stopped %s; %d Telegram calls", killed, stopped, len(h.tg.Calls("")))
}

// Replicas started together — a compose file's — do not see each other at
// first: one that saw itself alone would take the whole bot-wide budget
// until its next beat, the others their shares of it, and a backlog waiting
// for them would meet Telegram's 429.
func TestReplicasStartedTogetherKeepToTheBotWideBudget(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t, floodControl)
	h.env["RYO_LOG_LEVEL"] = "info"
	h.llm.Handle(newSlowQuestions().reply)
	const chats = 120
	asked := make([]telegramtest.Chat, chats)
	for i := range chats {
		user := telegramtest.NewUser(fmt.Sprintf("Backlog %d", i), "")
		asked[i] = telegramtest.PrivateChat(user)
		h.tg.SendText(asked[i], user, fmt.Sprintf("please answer q%d.1", asked[i].ID))
	}
	for _, id := range []string{"r1", "r2", "r3"} {
		h.startReplica(bin, id)
	}
	h.waitWithin(time.Minute, "the backlog answered", func() bool {
		for _, chat := range asked {
			if answersTo(h.tg, chat.ID, fmt.Sprintf("q%d.1", chat.ID)) == 0 {
				return false
			}
		}
		return true
	})
	if refused := h.tg.Refused(); len(refused) > 0 {
		t.Errorf("Telegram refused %d calls with 429, the first %s at %s", len(refused), refused[0].Method, refused[0].At.Format("15:04:05.000"))
	}
	for line := range strings.SplitSeq(h.logs.String(), "\n") {
		if strings.Contains(line, "joined the replicas") || strings.Contains(line, "polls Telegram") {
			t.Log(line)
		}
	}
}

// Polling fails over: when the replica that polls is killed, the other one
// polls within five seconds, and answers.
func TestPollingFailsOverWhenTheLeaderIsKilled(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	first := h.startReplica(bin, "first")
	h.waitForLeader("first")
	second := h.startReplica(bin, "second")
	h.waitFor("the second replica answering", func() bool {
		return strings.Count(h.logs.String(), "joined the replicas sharing the database") == 2
	})
	var doctor bytes.Buffer
	cfg, _ := LoadConfig(env(h.env), true)
	doctorDatabaseLine(t, cfg, &doctor)
	if !regexp.MustCompile(`2 running: first \(\d+ chats, up [^)]*, polls\), second \(`).MatchString(doctor.String()) {
		t.Errorf("doctor says %q; want both replicas, the first polling", doctor.String())
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	first.Wait()
	polls := len(h.tg.Calls("getUpdates"))
	h.waitWithin(5*time.Second, "the standby polling", func() bool { return len(h.tg.Calls("getUpdates")) > polls })
	t.Logf("the standby polled %v after the leader was killed", time.Since(killed).Round(time.Millisecond))
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Still here.")})
	q := h.tg.SendText(dm, alice, "anyone there?")
	h.answer(dm, q.ID, "Still here.")
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Fatalf("ryo after SIGTERM: %v; want a clean exit", err)
	}
}

// Two replicas take webhook posts, both with the secret they made from the
// token: updates posted to either are answered once, in order.
func TestWebhookWithTwoReplicas(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_WEBHOOK_URL"] = "https://bot.example.com/telegram/hook"
	h.start()
	second := h.startMain()
	h.waitFor("setWebhook by both", func() bool { return len(h.tg.Calls("setWebhook")) == 2 })
	secrets := map[string]bool{}
	for _, c := range h.tg.Calls("setWebhook") {
		secrets[c.Params["secret_token"]] = true
	}
	if len(secrets) != 1 {
		t.Fatalf("the replicas gave Telegram %d different secrets; want one", len(secrets))
	}
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: envelope("Answer to " + questionKey.FindString(r.Messages[len(r.Messages)-1].Content))}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bases := []string{"http://" + h.main.HTTPAddr.String(), "http://" + second.HTTPAddr.String()}
	for n := 1; n <= 4; n++ { // each person waits for the answer before asking again
		for i, c := range []telegramtest.Chat{dm, bobDM} {
			from := alice
			if c.ID == bobDM.ID {
				from = bob
			}
			h.tg.SendText(c, from, fmt.Sprintf("please answer q%d.%d", c.ID, n))
			if got, err := h.tg.DeliverWebhook(ctx, bases[(n+i)%2]); got != 1 || err != nil {
				t.Fatalf("delivered %d, %v; want the message taken", got, err)
			}
		}
		for _, c := range []telegramtest.Chat{dm, bobDM} {
			key := fmt.Sprintf("q%d.%d", c.ID, n)
			h.waitFor("the answer to "+key, func() bool { return answersTo(h.tg, c.ID, key) == 1 })
		}
	}
	for _, c := range []telegramtest.Chat{dm, bobDM} {
		checkAnsweredOnceInOrder(t, h.tg, c.ID)
	}
}

// startReplica runs the built ryo as the replica named id.
func (h *harness) startReplica(bin, id string) *exec.Cmd {
	h.t.Helper()
	h.env["RYO_REPLICA_ID"] = id
	defer delete(h.env, "RYO_REPLICA_ID")
	return h.startBinary(bin)
}

// startMain runs another Main on the harness's settings, in this process,
// until the test ends.
func (h *harness) startMain() *Main {
	h.t.Helper()
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		h.t.Fatal(err)
	}
	m := NewMain(cfg, h.quietLogger())
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- m.Run(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		if err := <-ended; err != nil {
			h.t.Errorf("Main.Run: %v", err)
		}
	})
	select {
	case <-m.Ready():
	case err := <-ended:
		ended <- err
		h.t.Fatalf("Main.Run ended at start: %v", err)
	}
	return m
}

// waitForReplicas waits until n replicas live.
func (h *harness) waitForReplicas(n int) {
	h.t.Helper()
	h.waitUntil(fmt.Sprintf("%d replicas", n), func(live []memory.LiveReplica) bool { return len(live) == n })
}

// waitForLeader waits until the replica named id polls.
func (h *harness) waitForLeader(id string) {
	h.t.Helper()
	h.waitUntil(id+" leading", func(live []memory.LiveReplica) bool {
		for _, r := range live {
			if r.ID == id && r.Leading {
				return true
			}
		}
		return false
	})
}

// waitUntil waits until the live replicas are as cond wants them; they
// change with their heartbeats, which the fake Telegram does not see, so
// it looks every beat.
func (h *harness) waitUntil(what string, cond func([]memory.LiveReplica) bool) {
	h.t.Helper()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(30 * time.Second)
	for {
		live, err := h.db().Replicas(context.Background())
		if err == nil && cond(live) {
			return
		}
		select {
		case <-tick.C:
		case <-timeout:
			h.t.Fatalf("waiting for %s: replicas %+v, %v", what, live, err)
		}
	}
}

// slowTurn asks a question in a chat of its own (named by tag) that the
// model holds, waits until a replica runs it, and returns that replica,
// which must be one of procs.
func (h *harness) slowTurn(slow *slowQuestions, tag string, procs map[string]*exec.Cmd) string {
	h.t.Helper()
	chat := slow.chat(tag)
	h.tg.SendText(chat, telegramtest.NewUser("Slow "+tag, ""), "please answer "+slow.key(tag))
	if err := h.llm.Wait(bg(h.t), func() bool { return slow.asked(tag) }); err != nil {
		h.t.Fatal(err)
	}
	h.waitFor("the slow turn's status message remembered", func() bool { return len(h.tg.BotMessages(chat.ID)) == 1 })
	var holder string
	h.waitUntil("the slow chat's holder", func([]memory.LiveReplica) bool {
		holder = leaseHolder(h.t, h.db(), chat.ID)
		return procs[holder] != nil
	})
	return holder
}

// slowQuestions is a model that answers every question at once, but the
// first asking of the first question in each of its chats, which it holds
// until release.
type slowQuestions struct {
	mu    sync.Mutex
	seen  map[string]int // by key
	hold  chan struct{}
	chats map[string]telegramtest.Chat
}

func newSlowQuestions() *slowQuestions {
	return &slowQuestions{seen: map[string]int{}, hold: make(chan struct{}), chats: map[string]telegramtest.Chat{
		"k": telegramtest.PrivateChat(telegramtest.NewUser("Slow k", "")),
		"s": telegramtest.PrivateChat(telegramtest.NewUser("Slow s", "")),
	}}
}

// key is the question asked in the slow chat named by tag.
func (s *slowQuestions) key(tag string) string { return fmt.Sprintf("q%d.1", s.chats[tag].ID) }

func (s *slowQuestions) reply(r ollamatest.Request) ollamatest.Reply {
	key := questionKey.FindString(r.Messages[len(r.Messages)-1].Content)
	answer := ollamatest.Reply{Content: envelope("Answer to " + key)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for tag := range s.chats {
		if key == s.key(tag) {
			s.seen[key]++
			if s.seen[key] == 1 {
				answer.Hold = s.hold
			}
		}
	}
	return answer
}

func (s *slowQuestions) asked(tag string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[s.key(tag)] > 0
}

func (s *slowQuestions) chat(tag string) telegramtest.Chat { return s.chats[tag] }

func (s *slowQuestions) release() { close(s.hold) }

// answersTo counts the bot's messages in chat that answer key.
func answersTo(tg *telegramtest.Server, chat int64, key string) int {
	n := 0
	for _, m := range tg.BotMessages(chat) {
		if strings.Contains(m.Text, "Answer to "+strings.TrimPrefix(key, "Answer to ")) {
			n++
		}
	}
	return n
}

// checkAnsweredOnceInOrder fails the test unless each question asked in
// chat was answered by exactly one message, the answers in the order asked.
func checkAnsweredOnceInOrder(t *testing.T, tg *telegramtest.Server, chat int64) {
	t.Helper()
	asked, answered := map[string]int{}, map[string]int{}
	var order []string
	for _, m := range tg.Messages(chat) {
		key := questionKey.FindString(m.Text)
		switch {
		case key == "":
		case m.From.ID != testBotID:
			asked[key]++
		case strings.Contains(m.Text, "Answer to "+key):
			answered[key]++
			order = append(order, key)
		}
	}
	for key := range asked {
		if answered[key] != 1 {
			t.Errorf("chat %d: %s answered %d times; want once", chat, key, answered[key])
		}
	}
	for i := 1; i < len(order); i++ {
		if turnOf(order[i]) < turnOf(order[i-1]) {
			t.Errorf("chat %d: answers in the order %v; want the order asked", chat, order)
			break
		}
	}
}

func turnOf(key string) int {
	var chat int64
	var n int
	fmt.Sscanf(strings.TrimPrefix(key, "q"), "%d.%d", &chat, &n)
	return n
}

// leaseHolder is the replica that holds chat's lease now; "" for none.
func leaseHolder(t testing.TB, db *memory.DB, chat int64) string {
	t.Helper()
	holder, err := db.ChatHolder(context.Background(), chat)
	if err != nil {
		t.Fatal(err)
	}
	return holder
}

// unfinishedUpdates counts the updates pending or being processed.
func unfinishedUpdates(t testing.TB, db *memory.DB) int {
	t.Helper()
	all, err := db.Unfinished(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(all)
}

// The polling replica's own database connection is cut (the server ended
// its backend) while its process runs on: one replica polls again within
// five seconds — the cut one, reconnected, or the other — and Telegram
// sees two pollers at most for a moment: one 409 Conflict, not an endless
// tug of war.
func TestPollingGoesOnWhenTheLeadersConnectionIsCut(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	h.startReplica(bin, "first")
	h.waitForLeader("first")
	h.startReplica(bin, "second")
	h.waitForReplicas(2)
	memorytest.Exec(t, h.env["DATABASE_URL"], `select pg_terminate_backend(l.pid) from pg_locks l join replicas r
		on l.locktype = 'advisory' and l.objsubid = 1 and l.classid = (r.lock_key >> 32)::oid
		and l.objid = (r.lock_key & 4294967295)::oid where r.id = 'first'`)
	cut := time.Now()
	var leader string
	h.waitUntil("a replica polling again", func(live []memory.LiveReplica) bool {
		for _, r := range live {
			if r.Leading && r.SeenAt.After(cut) && len(live) == 2 {
				leader = r.ID
				return true
			}
		}
		return false
	})
	t.Logf("%s polled %v after the leader's connection was cut", leader, time.Since(cut).Round(time.Millisecond))
	if time.Since(cut) > 5*time.Second {
		t.Errorf("a replica polled again only %v after the cut; want within 5 s", time.Since(cut))
	}
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Still here.")})
	q := h.tg.SendText(dm, alice, "anyone there?")
	h.answer(dm, q.ID, "Still here.")
	conflicts := 0
	for _, c := range h.tg.Calls("getUpdates") {
		if c.Err != nil && c.Err.Code == 409 && c.At.After(cut) {
			conflicts++
		}
	}
	t.Logf("%d getUpdates answered 409 Conflict after the cut", conflicts)
	if conflicts > 1 {
		t.Errorf("%d getUpdates answered 409 Conflict after the cut; want at most the one in flight", conflicts)
	}
}

// A replica frozen in the middle of a turn (SIGSTOP) for longer than a
// lease lasts loses the chat to another replica, which answers it; woken
// (SIGCONT), the frozen one sends nothing more in the chat — neither its
// own answer over the other's nor a failure — and leaves the update to it.
func TestAFrozenReplicaWokenSendsNothingOverTheAnswerGivenElsewhere(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	h.env["RYO_LOG_LEVEL"] = "info"
	chat := telegramtest.PrivateChat(telegramtest.NewUser("Frozen", ""))
	key := fmt.Sprintf("q%d.1", chat.ID)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ryo's log lines naming the chat:\n%s", linesNaming(h, chat.ID))
		}
	})
	// Each replica asks a model server of its own, so that the one running
	// the turn is known by the server its question reached — not by who
	// holds the chat's lease at one moment, which a late heartbeat can
	// hand to the other for a while.
	hold, first := make(chan struct{}), make(chan string, 1)
	var mu sync.Mutex
	asked := 0
	answering := func(replica string) func(ollamatest.Request) ollamatest.Reply {
		return func(ollamatest.Request) ollamatest.Reply {
			mu.Lock()
			defer mu.Unlock()
			asked++
			if asked == 1 { // the frozen replica's answer, which comes once it wakes
				first <- replica
				return ollamatest.Reply{Content: envelope("Answer to " + key + " from the frozen replica"), Hold: hold}
			}
			return ollamatest.Reply{Content: envelope("Answer to " + key)}
		}
	}
	h.llm.Handle(answering("r1"))
	second := ollamatest.NewServer("llama3.2")
	t.Cleanup(second.Close)
	second.Handle(answering("r2"))
	procs := map[string]*exec.Cmd{"r1": h.startReplica(bin, "r1")}
	h.env["OLLAMA_HOST"] = second.URL()
	procs["r2"] = h.startReplica(bin, "r2")
	h.waitForReplicas(2)
	h.tg.SendText(chat, telegramtest.NewUser("Frozen", ""), "please answer "+key)
	var frozen string
	select {
	case frozen = <-first:
	case <-time.After(30 * time.Second):
		t.Fatal("no replica asked the model")
	}
	h.waitFor("the turn's status message", func() bool { return len(h.tg.BotMessages(chat.ID)) == 1 })
	if err := procs[frozen].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the answer given by the other replica", func() bool { return answersTo(h.tg, chat.ID, key) == 1 })
	close(hold)
	woken := strings.Count(h.logs.String(), "another replica took this update's chat over")
	if err := procs[frozen].Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the woken replica leaving the update to the other", func() bool {
		return strings.Count(h.logs.String(), "another replica took this update's chat over") > woken
	})
	for _, m := range h.tg.BotMessages(chat.ID) {
		if strings.Contains(m.Text, "frozen replica") || strings.Contains(m.Text, "went wrong") {
			t.Errorf("the woken replica said %q in the chat", m.Text)
		}
	}
	checkAnsweredOnceInOrder(t, h.tg, chat.ID)
	if t.Failed() {
		for _, c := range h.tg.Calls("") {
			if c.Params["chat_id"] == fmt.Sprint(chat.ID) {
				t.Logf("%s %s %v %q", c.At.Format("15:04:05.000"), c.Method, c.Err, c.Params["text"])
			}
		}
		for _, m := range h.tg.BotMessages(chat.ID) {
			t.Logf("message %d: %q", m.ID, m.Text)
		}
	}
	for _, p := range procs {
		p.Process.Signal(syscall.SIGTERM)
		p.Wait()
	}
}

// A lone replica paused in the middle of a turn for longer than a lease
// lasts (a laptop asleep), woken, answers the turn exactly once — the
// status message it posted becomes the answer, nothing is left showing
// "Thinking…" — and a message sent once it woke is answered after it.
func TestALoneReplicaWokenFromSleepAnswersItsTurnOnce(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	h.env["RYO_LOG_LEVEL"] = "info"
	user := telegramtest.NewUser("Sleepy", "")
	chat := telegramtest.PrivateChat(user)
	first, second := fmt.Sprintf("q%d.1", chat.ID), fmt.Sprintf("q%d.2", chat.ID)
	hold := make(chan struct{})
	var mu sync.Mutex
	asked := 0
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		key := questionKey.FindString(r.Messages[len(r.Messages)-1].Content)
		mu.Lock()
		defer mu.Unlock()
		asked++
		if asked == 1 { // the answer the replica is waiting for as it falls asleep
			return ollamatest.Reply{Content: envelope("Answer to " + key), Hold: hold}
		}
		return ollamatest.Reply{Content: envelope("Answer to " + key)}
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ryo's log:\n%s", h.logs.String())
		}
	})
	proc := h.startReplica(bin, "r1")
	h.waitForReplicas(1)
	h.tg.SendText(chat, user, "please answer "+first)
	if err := h.llm.Wait(bg(t), func() bool { mu.Lock(); defer mu.Unlock(); return asked == 1 }); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the turn's status message", func() bool { return len(h.tg.BotMessages(chat.ID)) == 1 })
	if err := proc.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h.waitUntil("the replica asleep for longer than a lease lasts", func([]memory.LiveReplica) bool {
		return memorytest.Count(t, h.env["DATABASE_URL"], `select count(*) from replicas
			where id = 'r1' and seen_at < clock_timestamp() - interval '6 seconds'`) == 1
	})
	close(hold)
	if err := proc.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	h.tg.SendText(chat, user, "please answer "+second)
	h.waitFor("both answers", func() bool { return answersTo(h.tg, chat.ID, first) == 1 && answersTo(h.tg, chat.ID, second) == 1 })
	checkAnsweredOnceInOrder(t, h.tg, chat.ID)
	// The first answer is edited into its status message — or, when the
	// turn took longer than an edit may (the sleep is most of that 8 s, and
	// a loaded machine adds the rest), sent as a message of its own, the
	// status message then saying how long it took. Nothing else: no
	// progress shown over an answer, no answer twice.
	for _, m := range h.tg.BotMessages(chat.ID) {
		if !strings.HasPrefix(m.Text, "Answer to ") && !strings.HasPrefix(m.Text, "✅ Answered in ") {
			for _, m := range h.tg.BotMessages(chat.ID) {
				t.Logf("message %d: %q", m.ID, m.Text)
			}
			t.Fatalf("message %d from the bot is %q; want its two answers, and the first one's status message at most", m.ID, m.Text)
		}
	}
	proc.Process.Signal(syscall.SIGTERM)
	proc.Wait()
}
