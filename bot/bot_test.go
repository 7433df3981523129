package bot_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// token starts with the bot's id, as a real one does.
const token = "7234567890:AAHfakeTokenForTestsOnly_0123456789"

var (
	me    = telegramtest.User{ID: 7234567890, FirstName: "Ryo", Username: "ryo_test_bot"}
	alice = telegramtest.NewUser("Alice", "")
	dm    = telegramtest.PrivateChat(alice)
)

// answerFunc is an Answerer made of a function.
type answerFunc func(ctx context.Context, in agent.Input) (agent.Output, error)

func (f answerFunc) Run(ctx context.Context, in agent.Input) (agent.Output, error) { return f(ctx, in) }

type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// run starts a bot with answerer until the test ends.
func run(t *testing.T, tg *telegramtest.Server, db *memory.DB, answerer bot.Answerer, maxAttempts int) *logBuffer {
	t.Helper()
	logs := &logBuffer{}
	b, err := bot.New(bot.Config{Token: token, APIURL: tg.URL(), Workers: 2, PollTimeout: 2 * time.Second,
		CallTimeout: 5 * time.Second, HistoryLimit: 10, MaxAttempts: maxAttempts,
		PersonBurst: 1000}, // the shapes come from few people; one person's allowance is tested end to end
		slog.New(slog.NewTextHandler(logs, nil)), db, answerer, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return logs
}

func waitFor(t *testing.T, tg *telegramtest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tg.Wait(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func botSays(tg *telegramtest.Server, text string) func() bool {
	return func() bool {
		for _, m := range tg.BotMessages(dm.ID) {
			if strings.Contains(m.Text, text) {
				return true
			}
		}
		return false
	}
}

func newTelegram(t *testing.T, privacy bool) *telegramtest.Server {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.Options{Token: token, Bot: me, CanReadAllGroupMessages: !privacy})
	t.Cleanup(tg.Close)
	return tg
}

// A panic in a turn is recovered: the update is marked failed, the person is
// told, and the next message is answered as usual.
func TestPanicIsRecovered(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	calls := 0
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return agent.Output{Text: "fine again"}, nil
	}), 5)
	tg.SendText(dm, alice, "first")
	waitFor(t, tg, "the apology", botSays(tg, "something went wrong on my side"))
	if msgs := tg.BotMessages(dm.ID); len(msgs) != 1 || strings.Contains(msgs[0].Text, "Thinking") {
		t.Fatalf("bot messages = %+v; want the status message turned into the apology", msgs)
	}
	tg.SendText(dm, alice, "second")
	waitFor(t, tg, "the next answer", botSays(tg, "fine again"))
	if s := logs.String(); !strings.Contains(s, "panic while handling an update") || !strings.Contains(s, "boom") || !strings.Contains(s, "goroutine") {
		t.Fatalf("log lacks the panic and its stack:\n%s", s)
	}
}

// An update that was started too often (a crash loop) is given up, and the
// person is told instead of the bot crashing again.
func TestUpdateStartedTooOftenIsGivenUp(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	// A first run stored the update and crashed twice while handling it.
	msg := map[string]any{"message_id": 3217, "date": time.Now().Unix(), "text": "poison",
		"chat": map[string]any{"id": dm.ID, "type": "private"}, "from": map[string]any{"id": alice.ID, "first_name": "Alice"}}
	id := tg.PushUpdate(map[string]any{"message": msg})
	raw, _ := json.Marshal(map[string]any{"update_id": id, "message": msg})
	ups := []memory.InboxUpdate{{ID: id, ChatID: dm.ID, Kind: "message", Raw: raw}}
	if _, err := db.StoreUpdates(context.Background(), ups); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := db.ClaimUpdate(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	var asked atomic.Bool
	run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		asked.Store(true)
		return agent.Output{Text: "should not happen"}, nil
	}), 2)
	waitFor(t, tg, "the apology", botSays(tg, "something went wrong"))
	waitFor(t, tg, "the update marked failed", func() bool {
		state, attempts, _ := db.UpdateState(context.Background(), ups[0].ID)
		return state == memory.StateFailed && attempts == 3
	})
	if asked.Load() {
		t.Fatal("the model was asked for an update that was given up")
	}
}

func TestPrivacyModeWarning(t *testing.T) {
	tg, db := newTelegram(t, true), memorytest.Open(t)
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		return agent.Output{Text: "hi"}, nil
	}), 5)
	waitFor(t, tg, "the command menu", func() bool { return len(tg.Commands()) > 0 })
	if !strings.Contains(logs.String(), "group privacy mode is on") {
		t.Fatalf("no privacy warning in:\n%s", logs.String())
	}
}

// When Telegram fails for longer than one call's retries, the update waits
// and is tried again; the person gets one answer.
func TestTelegramOutageDelaysButLosesNothing(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		return agent.Output{Text: "made it"}, nil
	}), 5)
	waitFor(t, tg, "the command menu", func() bool { return len(tg.Commands()) > 0 })
	tg.FailNext("sendMessage", 4, telegramtest.APIError{Code: 502, Description: "Bad Gateway"})
	tg.SendText(dm, alice, "hello")
	waitFor(t, tg, "the answer", botSays(tg, "made it"))
	if n := len(tg.BotMessages(dm.ID)); n != 1 {
		t.Fatalf("bot messages = %d; want one", n)
	}
	if n := len(tg.Calls("sendMessage")); n != 5 {
		t.Fatalf("sendMessage calls = %d; want 4 failures and 1 success", n)
	}
}

// A command run again after a crash (its reply sent, the update not yet
// marked done) does not reply twice.
func TestCommandReplyIsNotSentTwice(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	msg := map[string]any{"message_id": 3217, "date": time.Now().Unix(), "text": "/help",
		"entities": []any{map[string]any{"type": "bot_command", "offset": 0, "length": 5}},
		"chat":     map[string]any{"id": dm.ID, "type": "private"}, "from": map[string]any{"id": alice.ID, "first_name": "Alice"}}
	id := tg.PushUpdate(map[string]any{"message": msg})
	raw, _ := json.Marshal(map[string]any{"update_id": id, "message": msg})
	c := context.Background()
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: dm.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatal(err)
	}
	// The earlier run claimed it, sent its reply (message 3218) and died.
	db.ClaimUpdate(c, id)
	if err := db.SaveTurnStatus(c, id, ryo.Place{ChatID: dm.ID}, 3218); err != nil {
		t.Fatal(err)
	}
	run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) { return agent.Output{}, nil }), 5)
	waitFor(t, tg, "the update done", func() bool {
		state, _, _ := db.UpdateState(c, id)
		return state == memory.StateDone
	})
	if n := len(tg.Calls("sendMessage")); n != 0 {
		t.Fatalf("sendMessage called %d times; the reply was already sent", n)
	}
}

// A Bot API address that echoes the request path in its error pages must not
// put the token into the log.
func TestTokenNeverReachesTheLog(t *testing.T) {
	hits := make(chan struct{}, 100)
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- struct{}{}
		http.Error(w, "<pre>Cannot POST "+r.URL.Path+"</pre>", http.StatusNotFound)
	}))
	defer echo.Close()
	logs := &logBuffer{}
	b, err := bot.New(bot.Config{Token: token, APIURL: echo.URL, Workers: 1, PollTimeout: 2 * time.Second,
		CallTimeout: time.Second, HistoryLimit: 10, MaxAttempts: 5}, slog.New(slog.NewTextHandler(logs, nil)),
		memorytest.Open(t), answerFunc(nil), "m")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	for range 4 { // getMe is tried, fails, and is logged more than once
		<-hits
	}
	cancel()
	<-done
	secret := token[strings.Index(token, ":")+1:]
	if s := logs.String(); strings.Contains(s, secret) || !strings.Contains(s, "Cannot POST /bot***/getMe") {
		t.Fatalf("log:\n%s\nwant the error with the token scrubbed", s)
	}
}
