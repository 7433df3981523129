package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/fetch"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// The people and chats of the end-to-end tests have Telegram's id ranges:
// people and the bot beyond 32 bits, groups -100 and ten digits.
var (
	botUser = telegramtest.User{ID: testBotID, FirstName: "Ryo", Username: "ryo_test_bot"}
	alice   = telegramtest.NewUser("Alice", "alice")
	bob     = telegramtest.NewUser("Bob", "")
	dm      = telegramtest.PrivateChat(alice)
	bobDM   = telegramtest.PrivateChat(bob)
	team    = telegramtest.NewForum("Team")
)

// harness runs ryo's Main against a fake Telegram, a fake Ollama and a real
// PostgreSQL schema of its own.
type harness struct {
	t     testing.TB
	tg    *telegramtest.Server
	llm   *ollamatest.Server
	env   map[string]string
	logs  *syncBuffer
	main  *Main
	store *memory.DB
	tools []toolbus.Spec      // registered beside the built-in tools
	fetch func(*fetch.Config) // adjusts web_fetch's settings, as Main.FetchConfig
	stop  context.CancelFunc
	ended chan error
}

// newHarness returns a harness; options adjust the fake Telegram.
func newHarness(t testing.TB, options ...func(*telegramtest.Options)) *harness {
	t.Helper()
	opts := telegramtest.Options{Token: testToken, Bot: botUser, CanReadAllGroupMessages: true}
	for _, o := range options {
		o(&opts)
	}
	tg := telegramtest.NewServer(opts)
	t.Cleanup(tg.Close)
	t.Cleanup(func() { checkBotAPIUse(t, tg) })
	llm := ollamatest.NewServer("llama3.2")
	t.Cleanup(llm.Close)
	h := &harness{t: t, tg: tg, llm: llm, logs: &syncBuffer{}}
	h.env = map[string]string{
		"TELEGRAM_BOT_TOKEN": testToken,
		"TELEGRAM_API_URL":   tg.URL(),
		"DATABASE_URL":       memorytest.URL(t),
		"OLLAMA_HOST":        llm.URL(),
		"RYO_MODEL":          "llama3.2",
		"RYO_HTTP_ADDR":      "127.0.0.1:0",
		"RYO_POLL_TIMEOUT":   "2s",
		"RYO_SHUTDOWN_GRACE": "0s",
		"RYO_LOG_LEVEL":      "debug",
	}
	return h
}

// floodControl makes the fake Telegram enforce Telegram's flood limits.
func floodControl(o *telegramtest.Options) {
	limits := telegramtest.TelegramLimits()
	o.Limits = &limits
}

// start runs Main until the test ends or stopMain is called.
func (h *harness) start() {
	h.t.Helper()
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		h.t.Fatal(err)
	}
	h.main = NewMain(cfg, slog.New(slog.NewTextHandler(io.MultiWriter(h.logs, testWriter{h.t}), &slog.HandlerOptions{Level: cfg.LogLevel})))
	h.main.Tools = h.tools
	h.main.FetchConfig = h.fetch
	ctx, cancel := context.WithCancel(context.Background())
	h.stop, h.ended = cancel, make(chan error, 1)
	go func() { h.ended <- h.main.Run(ctx) }()
	select {
	case <-h.main.Ready():
	case err := <-h.ended:
		h.t.Fatalf("Main.Run ended at start: %v", err)
	case <-time.After(30 * time.Second):
		h.t.Fatal("Main did not get ready")
	}
	h.t.Cleanup(h.stopMain)
}

// stopMain stops Main as a shutdown would, and waits for it.
func (h *harness) stopMain() {
	if h.stop == nil {
		return
	}
	h.stop()
	h.stop = nil
	select {
	case err := <-h.ended:
		if err != nil {
			h.t.Errorf("Main.Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Error("Main.Run did not stop")
	}
}

// db is the store Main uses, for checking what it stored.
func (h *harness) db() *memory.DB {
	h.t.Helper()
	if h.store == nil {
		h.store = memorytest.OpenURL(h.t, h.env["DATABASE_URL"])
	}
	return h.store
}

// waitFor waits until cond holds, re-checking on every change of the fake
// Telegram.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	h.waitWithin(30*time.Second, what, cond)
}

// waitWithin is waitFor with a deadline of d.
func (h *harness) waitWithin(d time.Duration, what string, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := h.tg.Wait(ctx, cond); err != nil {
		h.t.Fatalf("waiting for %s: %v\nchat calls: %s", what, err, h.callSummary())
	}
}

// answer waits until the bot's reply to message id shows want, and returns
// the bot's messages in the chat.
func (h *harness) answer(chat telegramtest.Chat, id int, want string) []telegramtest.Message {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("an answer containing %q", want), func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if m.ReplyTo == id && strings.Contains(m.Text, want) {
				return true
			}
		}
		return false
	})
	return h.tg.BotMessages(chat.ID)
}

// checkAnsweredOnce fails the test unless msgs, the bot's messages in a
// chat of one question, show its answer once: edited into the status
// message, or — when the turn took longer than an edit may (a SIGKILL and
// a start again, waiting for the killed one's lease, can take that long on
// a loaded machine) — sent as a message of its own, the status message
// then saying how long it took.
func checkAnsweredOnce(t testing.TB, msgs []telegramtest.Message, want string) {
	t.Helper()
	answers := 0
	for _, m := range msgs {
		switch {
		case strings.Contains(m.Text, want):
			answers++
		case !strings.HasPrefix(m.Text, "✅ Answered in "):
			answers = -len(msgs)
		}
	}
	if answers != 1 {
		t.Fatalf("the chat shows %d bot messages: %+v; want one answer, and its status message at most", len(msgs), msgs)
	}
}

// checkBotAPIUse fails the test if ryo made a call the published Bot API
// does not allow, which the fake answers in words of its own: a parameter
// the method lacks or of the wrong type, a required one missing, or a
// method the fake does not implement. Telegram would ignore an unknown
// parameter and so hide such a mistake.
func checkBotAPIUse(t testing.TB, tg *telegramtest.Server) {
	for _, c := range tg.Calls("") {
		if e := c.Err; e != nil && (strings.HasPrefix(e.Description, "telegramtest:") ||
			strings.Contains(e.Description, "is not a parameter of") || strings.Contains(e.Description, "must be of type") ||
			strings.HasPrefix(e.Description, `Bad Request: parameter "`)) {
			t.Errorf("ryo called %s against the Bot API: %v: %s", c.Method, c.Params, e.Description)
		}
	}
}

func (h *harness) callSummary() string {
	var b strings.Builder
	for _, c := range h.tg.Calls("") {
		if c.Method != "getUpdates" {
			fmt.Fprintf(&b, "\n  %s %v", c.Method, c.Params["text"])
		}
	}
	return b.String()
}

// syncBuffer collects log output from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testWriter shows the bot's log in the test's output when it fails.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// proxy stands between ryo and PostgreSQL, so a test can take the database
// away and bring it back.
type proxy struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  []net.Conn
}

func newProxy(t testing.TB, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{l: l, target: target, up: true}
	t.Cleanup(func() { l.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.l.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up := p.up
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *proxy) pipe(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, c, s)
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

// cut drops every connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = false
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	p.up = true
	p.mu.Unlock()
}

// envelope is a model answer that replies text and runs nothing.
func envelope(text string) string {
	reply, _ := json.Marshal(text)
	return `{"reply":` + string(reply) + `,"command":null,"tags":["chat"],"followUpQuestion":null}`
}
