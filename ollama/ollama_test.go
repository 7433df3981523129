package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollamatest"
)

func client(t *testing.T, host string, mod func(*ollama.Config)) *ollama.Client {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ollama.Config{Host: u, Model: "llama3.2", KeepAlive: 30 * time.Minute, NumCtx: 8192,
		ConnectTimeout: 2 * time.Second, FirstTokenTimeout: 10 * time.Second, Timeout: 20 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	return ollama.New(cfg)
}

func hello() ryo.ModelRequest {
	return ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}}}
}

func TestChatStreamsAndReportsUsage(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Chunks: []string{"Hel", "lo ", "there"}, PromptEvalCount: 12, EvalCount: 3,
		EvalDuration: 30 * time.Millisecond})
	var deltas []string
	req := hello()
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "Hello there" || strings.Join(deltas, "|") != "Hel|lo |there" {
		t.Fatalf("Chat = %q with deltas %q; want Hello there in three deltas", reply.Content, deltas)
	}
	if reply.Usage.PromptTokens != 12 || reply.Usage.ReplyTokens != 3 || reply.Usage.ReplyDuration != 30*time.Millisecond {
		t.Fatalf("usage = %+v", reply.Usage)
	}
	got := srv.Requests()[0]
	if got.Model != "llama3.2" || !got.Stream || len(got.Messages) != 2 || got.Messages[1].Content != "hi" {
		t.Fatalf("request = %+v", got)
	}
	if string(got.KeepAlive) != `"30m0s"` || got.Options["num_ctx"] != float64(8192) {
		t.Fatalf("keep_alive = %s, options = %v; want 30m0s and num_ctx 8192", got.KeepAlive, got.Options)
	}
}

func TestChatSendsFormat(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	schema := json.RawMessage(`{"type":"object"}`)
	req := hello()
	req.Format = schema
	if _, err := client(t, srv.URL(), nil).Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := string(srv.Requests()[0].Format); got != `{"type":"object"}` {
		t.Fatalf("format = %s", got)
	}
}

func TestChatFailures(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	tests := []struct {
		name     string
		reply    ollamatest.Reply
		model    string
		mod      func(*ollama.Config)
		code     string
		inMsg    string
		partOnly string // the content kept before the failure
	}{
		{name: "model missing", model: "nope", code: ryo.ENOTFOUND, inMsg: `ollama pull nope`},
		{name: "server error", reply: ollamatest.Reply{Status: 500, Error: "out of memory"}, code: ryo.EUNAVAILABLE, inMsg: "out of memory"},
		{name: "error mid-stream", reply: ollamatest.Reply{Chunks: []string{"par", "tial"}, MidStreamError: true, Error: "runner crashed"},
			code: ryo.EUNAVAILABLE, inMsg: "failed while answering", partOnly: "partial"},
		{name: "stream cut off", reply: ollamatest.Reply{Chunks: []string{"par"}, CutOff: true}, code: ryo.EUNAVAILABLE,
			inMsg: "stopped in the middle", partOnly: "par"},
		{name: "first token too late", reply: ollamatest.Reply{Hold: hold}, code: ryo.ETIMEOUT, inMsg: "did not start answering",
			mod: func(c *ollama.Config) { c.FirstTokenTimeout = 50 * time.Millisecond }},
		{name: "answer too long", reply: ollamatest.Reply{Hold: hold}, code: ryo.ETIMEOUT, inMsg: "took longer than",
			mod: func(c *ollama.Config) { c.Timeout = 50 * time.Millisecond }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.NewServer("llama3.2")
			defer srv.Close()
			if tt.model != "" {
				mod := tt.mod
				tt.mod = func(c *ollama.Config) {
					c.Model = tt.model
					if mod != nil {
						mod(c)
					}
				}
			} else {
				srv.Enqueue(tt.reply)
			}
			reply, err := client(t, srv.URL(), tt.mod).Chat(context.Background(), hello())
			if ryo.ErrorCode(err) != tt.code || !strings.Contains(ryo.ErrorMessage(err), tt.inMsg) {
				t.Fatalf("err = %v (code %s, message %q); want code %s with %q", err, ryo.ErrorCode(err), ryo.ErrorMessage(err), tt.code, tt.inMsg)
			}
			if reply.Content != tt.partOnly {
				t.Fatalf("content = %q; want %q", reply.Content, tt.partOnly)
			}
		})
	}
}

func TestChatUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = client(t, "http://"+addr, nil).Chat(context.Background(), hello())
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE || !strings.Contains(ryo.ErrorMessage(err), "can't reach the model server") {
		t.Fatalf("err = %v; want EUNAVAILABLE saying the server cannot be reached", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v; the log must name the address", err)
	}
}

func TestChatCancelledByCaller(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Hold: hold})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		srv.Wait(context.Background(), func() bool { return len(srv.Requests()) == 1 })
		cancel()
	}()
	_, err := client(t, srv.URL(), nil).Chat(ctx, hello())
	if !errors.Is(err, context.Canceled) || ryo.ErrorCode(err) != ryo.EINTERNAL {
		t.Fatalf("err = %v; want the caller's cancellation, not a user-facing error", err)
	}
}

func TestCheck(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	if v, err := client(t, srv.URL(), nil).Check(context.Background()); err != nil || v == "" {
		t.Fatalf("Check = %q, %v", v, err)
	}
	_, err := client(t, srv.URL(), func(c *ollama.Config) { c.Model = "absent" }).Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ollama pull absent") {
		t.Fatalf("Check(absent) = %v; want advice to pull it", err)
	}
	_, err = client(t, srv.URL(), func(c *ollama.Config) { c.VisionModel = "llava" }).Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "RYO_VISION_MODEL") || !strings.Contains(err.Error(), "ollama pull llava") {
		t.Fatalf("Check(vision absent) = %v; want advice to pull it", err)
	}
	_, err = client(t, srv.URL(), func(c *ollama.Config) { c.VisionModel = "llama3.2" }).Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not read pictures") {
		t.Fatalf("Check(vision model without vision) = %v; want it named", err)
	}
	srv.AddVisionModel("gemma3:4b")
	if _, err := client(t, srv.URL(), func(c *ollama.Config) { c.VisionModel = "gemma3:4b" }).Check(context.Background()); err != nil {
		t.Fatalf("Check(vision model) = %v", err)
	}
}

// Every call asks for at most NumPredict tokens, and an answer Ollama
// stopped at that limit comes back marked cut off, with what was written.
func TestChatLimitsTheAnswerAndSaysWhenItWasCut(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	c := client(t, srv.URL(), func(cfg *ollama.Config) { cfg.NumPredict = 3 })
	srv.Enqueue(ollamatest.Reply{Chunks: []string{"a ", "long ", "answer ", "that goes on"}}, ollamatest.Reply{Chunks: []string{"short"}})
	cut, err := c.Chat(context.Background(), hello())
	if err != nil || cut.Content != "a long answer " || !cut.CutOff || cut.Usage.ReplyTokens != 3 {
		t.Fatalf("Chat = %+v, %v; want the first 3 tokens, cut off", cut, err)
	}
	whole, err := c.Chat(context.Background(), hello())
	if err != nil || whole.Content != "short" || whole.CutOff {
		t.Fatalf("Chat = %+v, %v; want a whole answer, not cut off", whole, err)
	}
	for i, r := range srv.Requests() {
		if r.Options["num_predict"] != float64(3) {
			t.Fatalf("request %d options = %v; want num_predict 3", i, r.Options)
		}
	}
}

// A request with a temperature carries it in its options, as Ollama reads
// it; one without leaves the model's own, sending none.
func TestChatSendsTheTemperatureAsked(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	c := client(t, srv.URL(), nil)
	warm, cold := 0.3, 0.0
	for _, temp := range []*float64{&warm, nil, &cold} {
		req := hello()
		req.Temperature = temp
		if _, err := c.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	got := srv.Requests()
	if len(got) != 3 {
		t.Fatalf("%d requests; want 3", len(got))
	}
	if v, ok := got[0].Options["temperature"]; !ok || v != 0.3 {
		t.Errorf("options with 0.3 asked = %v", got[0].Options)
	}
	if v, ok := got[1].Options["temperature"]; ok {
		t.Errorf("options with none asked carry temperature %v", v)
	}
	if v, ok := got[2].Options["temperature"]; !ok || v != 0.0 {
		t.Errorf("options with 0 asked = %v; want temperature 0 sent", got[2].Options)
	}
}

// An answer asked for in one piece may be longer than any line a line
// reader would take (8 MB in Ollama's own client): it arrives whole.
func TestChatTakesAnAnswerLongerThanEightMegabytes(t *testing.T) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	long := strings.Repeat("ж", 5<<20) // 10 MB on the wire
	srv.Enqueue(ollamatest.Reply{Content: long})
	req := hello()
	req.Whole = true
	reply, err := client(t, srv.URL(), nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != long {
		t.Fatalf("got %d bytes, want %d", len(reply.Content), len(long))
	}
}

// BenchmarkChat is one small streamed answer from a server that answers
// at once: what a call costs ryo itself.
func BenchmarkChat(b *testing.B) {
	srv := ollamatest.NewServer("llama3.2")
	defer srv.Close()
	srv.Handle(func(ollamatest.Request) ollamatest.Reply {
		return ollamatest.Reply{Content: `{"reply":"Answer to q1.1","command":null,"tags":[],"followUpQuestion":null}`}
	})
	u, _ := url.Parse(srv.URL())
	c := ollama.New(ollama.Config{Host: u, Model: "llama3.2", ConnectTimeout: 2 * time.Second,
		FirstTokenTimeout: 10 * time.Second, Timeout: 20 * time.Second})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Chat(context.Background(), hello()); err != nil {
			b.Fatal(err)
		}
	}
}
