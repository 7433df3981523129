package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

func bg(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// history returns what the database holds for a place, as "kind: text".
func history(t *testing.T, db *memory.DB, place ryo.Place) []string {
	t.Helper()
	msgs, err := db.History(bg(t), place, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Kind)+": "+m.Text)
	}
	return out
}

func TestPrivateMessageIsAnsweredAsAReplyAndStored(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello Alice! How can I help?"), PromptEvalCount: 40, EvalCount: 9})
	h.start()
	q := h.tg.SendText(dm, alice, "hello there")
	msgs := h.answer(dm, q.ID, "Hello Alice! How can I help?")

	if len(msgs) != 1 || msgs[0].Edits != 1 {
		t.Fatalf("bot messages = %+v; want one status message edited once into the answer", msgs)
	}
	sends := h.tg.Calls("sendMessage")
	if len(sends) != 1 || !strings.Contains(sends[0].Params["text"], "Thinking") {
		t.Fatalf("sendMessage calls = %+v; want exactly one, the status message", sends)
	}
	if n := len(h.tg.Calls("sendChatAction")); n == 0 {
		t.Error("no typing action was shown")
	}
	req := h.llm.Requests()[0]
	if req.Model != "llama3.2" || req.Messages[0].Role != "system" || !strings.HasSuffix(req.Messages[len(req.Messages)-1].Content, "\nhello there") {
		t.Fatalf("model request = %+v", req)
	}
	db := h.db()
	h.waitFor("the update to be done", func() bool { return updateState(t, db, ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	got := history(t, db, ryo.Place{ChatID: dm.ID})
	if strings.Join(got, "|") != "user: hello there|assistant: Hello Alice! How can I help?" {
		t.Fatalf("stored history = %q", got)
	}
}

// updateState returns the inbox state of the newest user message at place.
func updateState(t *testing.T, db *memory.DB, place ryo.Place) memory.UpdateState {
	id := newestUpdate(t, db, place)
	if id == 0 {
		return ""
	}
	state, _, err := db.UpdateState(bg(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// statusRemembered reports whether the turn answering the newest user
// message at place has written its status message down.
func statusRemembered(t *testing.T, db *memory.DB, place ryo.Place) bool {
	id := newestUpdate(t, db, place)
	if id == 0 {
		return false
	}
	turn, err := db.Turn(bg(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return turn.StatusMessageID != 0
}

// newestUpdate is the update of the newest user message at place, 0 when
// there is none.
func newestUpdate(t *testing.T, db *memory.DB, place ryo.Place) int64 {
	msgs, err := db.History(bg(t), place, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == ryo.KindUser {
			return msgs[i].UpdateID
		}
	}
	return 0
}

func TestConversationHistoryReachesTheModelUntilReset(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Nice to meet you, Alice.")}, ollamatest.Reply{Content: envelope("Your name is Alice.")},
		ollamatest.Reply{Content: envelope("I don't know your name yet.")})
	h.start()
	q := h.tg.SendText(dm, alice, "my name is Alice")
	h.answer(dm, q.ID, "Nice to meet you")
	q = h.tg.SendText(dm, alice, "what is my name?")
	h.answer(dm, q.ID, "Your name is Alice.")
	second := contents(h.llm.Requests()[1])
	if !strings.Contains(second, `user: my name is Alice|assistant: {"reply":"Nice to meet you, Alice.","command":null,"tags":[],"followUpQuestion":null}|user: (`) {
		t.Fatalf("second request = %s; want the first exchange as history", second)
	}

	q = h.tg.SendText(dm, alice, "/reset")
	h.answer(dm, q.ID, "I start fresh from here")
	q = h.tg.SendText(dm, alice, "what is my name?")
	h.answer(dm, q.ID, "I don't know")
	third := contents(h.llm.Requests()[2])
	if strings.Contains(third, "my name is Alice") {
		t.Fatalf("after /reset the model still saw %s", third)
	}
	h.waitFor("the answer stored", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); len(got) != 2 {
		t.Fatalf("history after reset = %q; want only the exchange after it in the context", got)
	}
}

func contents(r ollamatest.Request) string {
	var s []string
	for _, m := range r.Messages[1:] {
		s = append(s, m.Role+": "+m.Content)
	}
	return strings.Join(s, "|")
}

func TestCommands(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor("the command menu", func() bool { return len(h.tg.Commands()) == 14 })
	var menu []string
	for _, c := range h.tg.Commands() {
		menu = append(menu, c.Command)
	}
	if strings.Join(menu, ",") != "start,help,reset,stop,tools,use,memory,forget,forgetme,knowledge,model,settings,export,stats" {
		t.Fatalf("menu = %v", menu)
	}
	q := h.tg.SendText(dm, alice, "/start")
	h.answer(dm, q.ID, "Hi Alice!")
	q = h.tg.SendText(dm, alice, "/help")
	h.answer(dm, q.ID, "/stop — stop the answer")
	q = h.tg.SendText(dm, alice, "/frobnicate")
	h.answer(dm, q.ID, "I don't know /frobnicate")
	q = h.tg.SendText(team, bob, "/help@ryo_test_bot")
	h.answer(team, q.ID, "mention me (@ryo_test_bot)")
	h.tg.SendText(team, bob, "/help@some_other_bot")
	q = h.tg.SendText(team, bob, "/start")
	h.answer(team, q.ID, "Hi Bob!")
	if n := len(h.tg.BotMessages(team.ID)); n != 2 {
		t.Fatalf("bot wrote %d messages in the group; want 2 (the command for another bot is not ours)", n)
	}
	if len(h.llm.Requests()) != 0 {
		t.Fatal("a command reached the model")
	}
	u, err := h.db().SaveUser(bg(t), ryo.User{ID: alice.ID, FirstName: "Alice"}, false)
	if err != nil || u.Role != ryo.RoleUser {
		t.Fatalf("alice after /start = %+v, %v", u, err)
	}
}

func TestGroupAnswersOnlyWhenAddressedAndNamesSpeakers(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Bob asked about lunch.")}, ollamatest.Reply{Content: envelope("Noon works.")},
		ollamatest.Reply{Content: envelope("Topic answer.")})
	h.start()
	h.tg.SendText(team, bob, "lunch at noon?")
	q := h.tg.SendText(team, alice, "@ryo_test_bot what did Bob ask?")
	msgs := h.answer(team, q.ID, "Bob asked about lunch.")
	if len(msgs) != 1 {
		t.Fatalf("bot messages = %+v; the unaddressed message must not be answered", msgs)
	}
	req := contents(h.llm.Requests()[0])
	if !strings.Contains(req, "user: [Bob]: lunch at noon?") || !strings.Contains(req, "[Alice (@alice)]: @ryo_test_bot what did Bob ask?") {
		t.Fatalf("group request = %s; want speakers named", req)
	}
	q = h.tg.SendText(team, bob, "does noon work for you?", telegramtest.ReplyTo(msgs[0].ID))
	h.answer(team, q.ID, "Noon works.")

	topic := h.tg.CreateTopic(team, bob, "Plans")
	q = h.tg.SendText(team, alice, "@ryo_test_bot hi from the topic", telegramtest.InThread(topic.ThreadID))
	answered := h.answer(team, q.ID, "Topic answer.")
	if last := answered[len(answered)-1]; last.ThreadID != topic.ThreadID {
		t.Fatalf("topic answer went to thread %d; want %d", last.ThreadID, topic.ThreadID)
	}
	if req := contents(h.llm.Requests()[2]); strings.Contains(req, "lunch") {
		t.Fatalf("the topic's context holds the general chat: %s", req)
	}
}

func TestModelFailuresReachTheUser(t *testing.T) {
	closed := closedAddr(t)
	hold := make(chan struct{})
	defer close(hold)
	tests := []struct {
		name     string
		env      map[string]string
		reply    *ollamatest.Reply
		userSees string
		logSays  string
	}{
		{"ollama unreachable", map[string]string{"OLLAMA_HOST": "http://" + closed}, nil,
			"can't reach the model server", "connection refused"},
		{"model missing", map[string]string{"RYO_MODEL": "absent"}, nil,
			"is not installed", "HTTP 404"},
		{"model too slow", map[string]string{"RYO_MODEL_FIRST_TOKEN_TIMEOUT": "1s"}, &ollamatest.Reply{Hold: hold},
			"did not start answering within 1s", "no first token in time"},
		{"model breaks off", nil, &ollamatest.Reply{Chunks: []string{"Hal"}, MidStreamError: true, Error: "runner died"},
			"The model failed while answering.", "runner died"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			for k, v := range tt.env {
				h.env[k] = v
			}
			if tt.reply != nil {
				h.llm.Enqueue(*tt.reply)
			}
			h.start()
			q := h.tg.SendText(dm, alice, "hello")
			msgs := h.answer(dm, q.ID, tt.userSees)
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text, "⚠️") {
				t.Fatalf("bot messages = %+v; want the status message turned into the explanation", msgs)
			}
			h.waitFor("the failure in the log", func() bool { return strings.Contains(h.logs.String(), tt.logSays) })
			if !strings.Contains(h.logs.String(), "turn failed") {
				t.Fatal("the log does not say the turn failed")
			}
			// The explanation is shown before the update is marked failed.
			h.waitFor("the update marked failed (answered with an explanation, never retried)", func() bool {
				return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateFailed
			})
		})
	}
}

func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// Updates the bot does not act on, or cannot read whole, are finished on
// purpose: a sticker gets a polite answer, an edit and a stale button are
// handled, odd shapes are ignored, and the next message is answered.
func TestUnsupportedAndMalformedUpdates(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Still here.")})
	h.start()
	sticker := h.tg.PushUpdate(map[string]any{"message": map[string]any{
		"message_id": 50, "date": time.Now().Unix(), "chat": map[string]any{"id": dm.ID, "type": "private"},
		"from":    map[string]any{"id": alice.ID, "is_bot": false, "first_name": "Alice"},
		"sticker": map[string]any{"file_id": "x", "file_unique_id": "y", "type": "regular", "width": 512, "height": 512},
	}})
	h.waitFor("a polite answer to the sticker", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if strings.Contains(m.Text, "I can't read that kind of message") {
				return true
			}
		}
		return false
	})
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 51, "chat": "not a chat"}})
	h.tg.PushRawUpdate([]byte(`{"update_id": 999999999, "message": {"text": 5}}`))
	h.tg.PushUpdate(map[string]any{"callback_query": map[string]any{"id": "cb1", "from": map[string]any{"id": alice.ID, "first_name": "Alice"},
		"chat_instance": "ci", "data": "old:1"}})
	q := h.tg.SendText(dm, alice, "hello?")
	h.tg.PushUpdate(map[string]any{"edited_message": map[string]any{"message_id": 7, "date": time.Now().Unix() - 60, // never stored
		"edit_date": time.Now().Unix(), "from": map[string]any{"id": alice.ID, "first_name": "Alice"},
		"chat": map[string]any{"id": dm.ID, "type": "private", "first_name": "Alice"}, "text": "hello??"}})
	h.answer(dm, q.ID, "Still here.")
	h.waitFor("the stale button answered", func() bool { return len(h.tg.Calls("answerCallbackQuery")) == 1 })
	if n := len(h.llm.Requests()); n != 1 {
		t.Fatalf("the model was asked %d times; want once (the edit of a message never stored is ignored)", n)
	}
	// A message whose text is a number is read in part (the text left out,
	// and named in the log): with nothing left to read, it is ignored on
	// purpose, not failed.
	db := h.db()
	h.waitFor("the odd update done", func() bool {
		state, _, err := db.UpdateState(bg(t), 999999999)
		return err == nil && state == memory.StateDone
	})
	if state, _, _ := db.UpdateState(bg(t), sticker); state != memory.StateDone {
		t.Fatalf("sticker update state = %s; want done", state)
	}
	if !strings.Contains(h.logs.String(), "update read in part") || !strings.Contains(h.logs.String(), "message.text") {
		t.Fatal("the log does not name what was left out of the odd update")
	}
	if n, _ := db.DeadCount(bg(t)); n != 0 {
		t.Fatalf("%d updates in the dead letter; want none", n)
	}
}

// A turn interrupted by a shutdown is resumed at the next start and answered
// once, in the status message it posted before.
func TestRestartInTheMiddleOfATurnAnswersOnce(t *testing.T) {
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Hold: hold})
	h.start()
	q := h.tg.SendText(dm, alice, "a slow question")
	h.waitFor("the status message", func() bool { return len(h.tg.BotMessages(dm.ID)) == 1 })
	ctx := bg(t)
	if err := h.llm.Wait(ctx, func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	h.stopMain()
	if msgs := h.tg.BotMessages(dm.ID); len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text, "⏸ Paused") {
		t.Fatalf("after the shutdown the chat shows %+v; want the status message marked paused", msgs)
	}

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The slow answer.")})
	h.start()
	msgs := h.answer(dm, q.ID, "The slow answer.")
	if len(msgs) != 1 {
		t.Fatalf("bot messages = %+v; want the one status message, edited into the answer", msgs)
	}
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
	if strings.Join(got, "|") != "user: a slow question|assistant: The slow answer." {
		t.Fatalf("history = %q; want the question and the answer once each", got)
	}
}

// While the database is away nothing is confirmed to Telegram; when it comes
// back, the waiting message is stored and answered.
func TestDatabaseLostWhileRunning(t *testing.T) {
	h := newHarness(t)
	u, _ := url.Parse(h.env["DATABASE_URL"])
	p := newProxy(t, u.Host)
	u.Host = p.addr()
	h.env["DATABASE_URL"] = u.String()
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("First answer.")}, ollamatest.Reply{Content: envelope("Second answer.")})
	h.start()
	q := h.tg.SendText(dm, alice, "first")
	h.answer(dm, q.ID, "First answer.")
	h.waitFor("the first update confirmed", func() bool { return h.tg.PendingUpdates() == 0 })

	p.cut()
	polls := len(h.tg.Calls("getUpdates"))
	q = h.tg.SendText(dm, alice, "second")
	h.waitFor("the poller to try again", func() bool { return len(h.tg.Calls("getUpdates")) >= polls+3 })
	if h.tg.PendingUpdates() != 1 {
		t.Fatalf("pending updates = %d while the database is away; want the message kept by Telegram", h.tg.PendingUpdates())
	}
	if !strings.Contains(h.logs.String(), "store updates") {
		t.Fatal("the log does not say updates could not be stored")
	}
	if status := healthz(t, h); status != http.StatusServiceUnavailable {
		t.Fatalf("/healthz without the database = %d; want 503", status)
	}

	p.restore()
	h.answer(dm, q.ID, "Second answer.")
	h.waitFor("the second update confirmed", func() bool { return h.tg.PendingUpdates() == 0 })
	h.waitFor("the second update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	if got := history(t, h.db(), ryo.Place{ChatID: dm.ID}); len(got) != 4 {
		t.Fatalf("history = %q; want both exchanges", got)
	}
}

func TestDatabaseUnreachableAtStart(t *testing.T) {
	h := newHarness(t)
	h.env["DATABASE_URL"] = "postgres://ryo:hunter2secret@" + closedAddr(t) + "/ryodb"
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		t.Fatal(err)
	}
	err = NewMain(cfg, h.quietLogger()).Run(bg(t))
	if err == nil {
		t.Fatal("Run started without a database")
	}
	if msg := err.Error(); !strings.Contains(msg, `connect to database "ryodb" on 127.0.0.1`) || strings.Contains(msg, "hunter2secret") {
		t.Fatalf("error = %q; want host and database named, password hidden", msg)
	}
	if len(h.tg.Calls("getUpdates")) != 0 {
		t.Fatal("polled Telegram without a database to store updates in")
	}
}

func (h *harness) quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(h.logs, nil)) }

func TestHealthz(t *testing.T) {
	h := newHarness(t)
	h.start()
	if status := healthz(t, h); status != http.StatusOK {
		t.Fatalf("/healthz = %d", status)
	}
}

func healthz(t *testing.T, h *harness) int {
	t.Helper()
	resp, err := http.Get("http://" + h.main.HTTPAddr.String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRejectedTokenStopsStart(t *testing.T) {
	h := newHarness(t)
	h.env["TELEGRAM_BOT_TOKEN"] = "7345678901:AAHsomeOtherTokenThatTheFakeRejects"
	cfg, _ := LoadConfig(env(h.env), true)
	err := NewMain(cfg, h.quietLogger()).Run(bg(t))
	if err == nil || !strings.Contains(err.Error(), "rejected by Telegram") || strings.Contains(err.Error(), "AAHsome") {
		t.Fatalf("Run with a rejected token = %v", err)
	}
}

// runSecond runs another Main on the harness's settings beside the first:
// it returns the Main, what stops it, and where its Run's error comes.
func (h *harness) runSecond() (*Main, context.CancelFunc, chan error) {
	cfg, _ := LoadConfig(env(h.env), true)
	second := NewMain(cfg, h.quietLogger())
	ctx, cancel := context.WithCancel(bg(h.t))
	ended := make(chan error, 1)
	go func() { ended <- second.Run(ctx) }()
	return second, cancel, ended
}

// A replica stopped while it waits to join the others (two beats, so that
// they make room in the bot-wide budget) stops: it lets its connection go.
func TestAReplicaStoppedWhileItJoinsStops(t *testing.T) {
	h := newHarness(t)
	h.start()
	_, cancel, ended := h.runSecond()
	h.waitForReplicas(2) // the second one is written down, and waits
	cancel()
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("second Run = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a replica stopped while it joined did not stop within 30 s")
	}
}

func TestSecondReplicaRunsBesideTheFirst(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Answered once.")})
	h.start()
	second, cancel, ended := h.runSecond()
	defer func() {
		cancel()
		if err := <-ended; err != nil {
			t.Errorf("second Run = %v", err)
		}
	}()
	select {
	case <-second.Ready():
	case err := <-ended:
		ended <- err
		t.Fatalf("the second ryo ended at start: %v", err)
	}
	q := h.tg.SendText(dm, alice, "hello, both of you")
	if msgs := h.answer(dm, q.ID, "Answered once."); len(msgs) != 1 {
		t.Fatalf("the chat shows %d bot messages: %+v; want one", len(msgs), msgs)
	}
}
