package modelpool

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollamatest"
)

// A server that answers probes but fails every chat is waited for longer
// each time it fails again, so that it does not cost a request a
// failover every half second for ever.
func TestAServerThatFailsEveryChatIsWaitedForLongerEachTime(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	a.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Status: 500, Error: "CUDA error"} })
	clock := clocktest.New(time.Unix(0, 0))
	p := testPool(t, clock, 1, a, b)
	running(t, p)
	ctx := ctxFor(t)
	for i, wait := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second} {
		reply, err := p.Chat(ctx, hello("hi"))
		if err != nil || reply.Content != "ok" {
			t.Fatalf("chat %d: reply %q, err %v; want B's answer", i, reply.Content, err)
		}
		waitFor(t, p, func(s []Status) bool { return !s[0].Healthy })
		if err := clock.WaitArmed(ctx, clock.Now().Add(wait)); err != nil {
			t.Fatalf("after failure %d, no probe %v on: %v", i+1, wait, err)
		}
		clock.Advance(wait)
		waitFor(t, p, func(s []Status) bool { return s[0].Healthy && s[0].Models != nil })
	}
	if n := len(a.Requests()); n != 4 {
		t.Fatalf("A was asked %d times; want once per time it came back", n)
	}
	// A chat that A answers makes it trusted again: its next failure is
	// probed half a second on.
	a.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "a"} })
	for p.Servers()[0].Requests <= p.Servers()[1].Requests {
		if _, err := p.Chat(ctx, hello("hi")); err != nil {
			t.Fatal(err)
		}
	}
	if len(a.Requests()) < 5 {
		t.Fatal("A was not asked again once it answered")
	}
	a.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Status: 500, Error: "CUDA error"} })
	for p.Servers()[0].Healthy {
		if _, err := p.Chat(ctx, hello("hi")); err != nil {
			t.Fatal(err)
		}
	}
	if err := clock.WaitArmed(ctx, clock.Now().Add(500*time.Millisecond)); err != nil {
		t.Fatalf("a server that answered was not probed half a second after it failed again: %v", err)
	}
}

// Five hundred requests in line, cancelled while servers free up, leave
// no slot taken and no count astray.
func TestACancellationStormLeavesNoSlotTaken(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 2, a, b)
	running(t, p)
	hold := make(chan struct{})
	for _, s := range []*ollamatest.Server{a, b} {
		s.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "ok", Hold: hold} })
	}
	ctx := ctxFor(t)
	var outs []<-chan error
	for range 4 {
		outs = append(outs, chats(p, ctx, hello("first")))
	}
	received(t, a, 2)
	received(t, b, 2)
	var cancels []context.CancelFunc
	for range 500 {
		c, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
		outs = append(outs, chats(p, c, hello("storm")))
	}
	inLine(t, p, 500)
	// Half are cancelled before the servers free up, half while they do.
	for _, cancel := range cancels[:250] {
		cancel()
	}
	close(hold)
	for _, cancel := range cancels[250:] {
		cancel()
	}
	answered, cancelled := 0, 0
	for _, o := range outs {
		switch err := <-o; {
		case err == nil:
			answered++
		case errors.Is(err, context.Canceled):
			cancelled++
		default:
			t.Fatalf("err = %v; want an answer or the request's cancellation", err)
		}
	}
	inLine(t, p, 0)
	s := p.Servers()
	if s[0].InFlight != 0 || s[1].InFlight != 0 {
		t.Fatalf("in flight A=%d B=%d after every request ended; want 0", s[0].InFlight, s[1].InFlight)
	}
	if got, sent := s[0].Requests+s[1].Requests, int64(len(a.Requests())+len(b.Requests())); got != sent {
		t.Fatalf("the pool counts %d requests sent, the servers got %d", got, sent)
	}
	if answered < 4 || answered+cancelled != 504 {
		t.Fatalf("%d answered, %d cancelled", answered, cancelled)
	}
	// Every slot is free: four requests at once reach the servers at once.
	hold2 := make(chan struct{})
	for _, srv := range []*ollamatest.Server{a, b} {
		srv.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "ok", Hold: hold2} })
	}
	before := len(a.Requests()) + len(b.Requests())
	var last []<-chan error
	for range 4 {
		last = append(last, chats(p, ctx, hello("after")))
	}
	waitFor(t, p, func(s []Status) bool { return s[0].InFlight+s[1].InFlight == 4 })
	close(hold2)
	for _, o := range last {
		if err := <-o; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(a.Requests()) + len(b.Requests()) - before; n != 4 {
		t.Fatalf("%d of the last four reached a server", n)
	}
}

// A server that drops the model between the pool reading its list and a
// chat hands the request to another that has it, and is read again.
func TestAModelRemovedBeforeTheChatMovesTheRequest(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	a.Remove("llama3.2")
	for range 3 {
		reply, err := p.Chat(ctxFor(t), hello("hi"))
		if err != nil || reply.Content != "ok" {
			t.Fatalf("reply %q, err %v", reply.Content, err)
		}
	}
	waitFor(t, p, func(s []Status) bool { return s[0].Models != nil && len(s[0].Models) == 0 })
	if n := len(a.Requests()); n > 1 {
		t.Fatalf("A, which dropped the model, was asked %d times", n)
	}
	if s := p.Servers(); !s[0].Healthy {
		t.Fatalf("A is down for lacking a model: %+v", s[0])
	}
}

// Ten thousand models with odd names are read and routed by.
func TestTenThousandOddlyNamedModels(t *testing.T) {
	a, b := fake(t), fake(t, "llama3.2")
	odd := []string{"модель", "模型", "🦙-llama", "a\u200db", "ﬁ-ligature", "e\u0301", "名前:latest", "x/y/z:1.0-q4_K_M"}
	for i := range 10000 {
		a.AddModel(odd[i%len(odd)] + strconv.Itoa(i))
	}
	a.AddModel("🦙-llama:big")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	if n := len(p.Servers()[0].Models); n != 10001 {
		t.Fatalf("A lists %d models; want 10001", n)
	}
	reply, err := p.Chat(ctxFor(t), ryo.ModelRequest{Model: "🦙-llama:big", Messages: hello("hi").Messages})
	if err != nil || reply.Content != "ok" || len(a.Requests()) != 1 {
		t.Fatalf("reply %q, err %v, A asked %d; want A's answer", reply.Content, err, len(a.Requests()))
	}
	if _, err := p.Chat(ctxFor(t), hello("hi")); err != nil || len(b.Requests()) != 1 {
		t.Fatalf("err %v, B asked %d; want the default model on B", err, len(b.Requests()))
	}
}

// A request that failed on one server keeps its place in line: it came
// before those that arrived while it was being answered, and is served
// before them.
func TestARequestThatFailedOverKeepsItsPlaceInLine(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	holdA, holdB := make(chan struct{}), make(chan struct{})
	a.Enqueue(ollamatest.Reply{Status: 500, Error: "CUDA error", Hold: holdA})
	b.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "ok", Hold: holdB} })
	ctx := ctxFor(t)
	outs := []<-chan error{chats(p, ctx, hello("0"))}
	waitFor(t, p, func(s []Status) bool { return s[0].InFlight+s[1].InFlight == 1 })
	outs = append(outs, chats(p, ctx, hello("1")))
	received(t, a, 1)
	received(t, b, 1)
	for i, text := range []string{"2", "3"} {
		outs = append(outs, chats(p, ctx, hello(text)))
		inLine(t, p, i+1)
	}
	close(holdA) // "1" (or "0") fails on A, before its first token
	waitFor(t, p, func(s []Status) bool { return !s[0].Healthy })
	inLine(t, p, 3)
	close(holdB)
	for _, o := range outs {
		if err := <-o; err != nil {
			t.Fatal(err)
		}
	}
	first := a.Requests()[0].Messages[0].Content
	var order []string
	for _, r := range b.Requests() {
		order = append(order, r.Messages[0].Content)
	}
	if got, want := strings.Join(order[1:], " "), first+" 2 3"; len(order) != 4 || got != want {
		t.Fatalf("B served %q after its first; want %q: %s failed on A, before 2 and 3 came", order, want, first)
	}
}

// A server that sends a first token and then nothing more is not left for
// another: the request ends at the whole answer's deadline, with the part
// already shown, and no second answer is started.
func TestAStreamThatStallsAfterItsFirstTokenEndsAtTheDeadline(t *testing.T) {
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"llama3.2:latest"}]}`)
		case "/api/chat":
			w.Header().Set("Content-Type", "application/x-ndjson")
			_, _ = io.WriteString(w, `{"model":"llama3.2","message":{"role":"assistant","content":"par"},"done":false}`+"\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			_, _ = io.WriteString(w, `{"version":"0.17.4"}`)
		}
	}))
	t.Cleanup(stall.Close)
	b := fake(t, "llama3.2")
	u, _ := url.Parse(stall.URL)
	slow := ollama.New(ollama.Config{Host: u, Model: "llama3.2", ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: 5 * time.Second, Timeout: 200 * time.Millisecond})
	p := New(Config{Model: "llama3.2", Clock: clocktest.New(time.Unix(0, 0))}, slog.New(slog.DiscardHandler),
		Member{Name: "stall", Server: slow, Limit: 1}, Member{Name: "b", Server: client(t, b.URL()), Limit: 1})
	var deltas []string
	req := hello("hi")
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	_, err := p.Chat(ctxFor(t), req)
	if ryo.ErrorCode(err) != ryo.ETIMEOUT || strings.Join(deltas, "") != "par" || len(b.Requests()) != 0 {
		t.Fatalf("err %v, deltas %q, B asked %d; want the deadline, A's part only", err, deltas, len(b.Requests()))
	}
	if s := p.Servers(); s[0].InFlight != 0 || s[0].Failovers != 0 {
		t.Fatalf("servers %+v", s)
	}
}
