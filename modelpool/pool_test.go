package modelpool

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/ollamatest"
)

// fake starts a fake Ollama server with models, closed when the test ends.
func fake(t *testing.T, models ...string) *ollamatest.Server {
	t.Helper()
	s := ollamatest.NewServer(models...)
	t.Cleanup(s.Close)
	return s
}

// client is the real Ollama adapter for the server at rawURL.
func client(t *testing.T, rawURL string) *ollama.Client {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return ollama.New(ollama.Config{Host: u, Model: "llama3.2", EmbedModel: "embed", ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: 30 * time.Second, Timeout: time.Minute})
}

// testPool makes a pool of the fake servers, each answering limit
// requests at once, on a manual clock.
func testPool(t *testing.T, clock *clocktest.Clock, limit int, servers ...*ollamatest.Server) *Pool {
	t.Helper()
	var members []Member
	for i, s := range servers {
		members = append(members, Member{Name: string(rune('A' + i)), Server: client(t, s.URL()), Limit: limit})
	}
	return New(Config{Model: "llama3.2", EmbedModel: "embed", Clock: clock}, slog.New(slog.DiscardHandler), members...)
}

// running starts p.Run until the test ends, and waits until every server
// up has said which models it has.
func running(t *testing.T, p *Pool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, p, func(s []Status) bool {
		for _, st := range s {
			if st.Healthy && st.Models == nil {
				return false
			}
		}
		return true
	})
}

// waitFor blocks until cond holds of the servers' state.
func waitFor(t *testing.T, p *Pool, cond func([]Status) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if cond(p.Servers()) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("servers never reached the state wanted: %+v", p.Servers())
		}
	}
}

// received waits until s has received n chat requests.
func received(t *testing.T, s *ollamatest.Server, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := s.Wait(ctx, func() bool { return len(s.Requests()) >= n }); err != nil {
		t.Fatalf("%d requests, want %d: %v", len(s.Requests()), n, err)
	}
}

func hello(text string) ryo.ModelRequest {
	return ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: ryo.ModelUser, Content: text}}}
}

// chats runs Chat in the background and hands back its outcome.
func chats(p *Pool, ctx context.Context, req ryo.ModelRequest) <-chan error {
	out := make(chan error, 1)
	go func() {
		_, err := p.Chat(ctx, req)
		out <- err
	}()
	return out
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A request goes to the server with the fewest requests in flight for its
// limit.
func TestChatGoesToTheLeastLoadedServer(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 4, a, b)
	running(t, p)
	hold := make(chan struct{})
	a.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "a", Hold: hold} })
	b.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "b", Hold: hold} })
	ctx := ctxFor(t)
	var outs []<-chan error
	for range 5 {
		outs = append(outs, chats(p, ctx, hello("hi")))
		waitFor(t, p, func(s []Status) bool { return s[0].InFlight+s[1].InFlight == len(outs) })
	}
	s := p.Servers()
	if s[0].InFlight+s[1].InFlight != 5 || s[0].InFlight < 2 || s[1].InFlight < 2 {
		t.Fatalf("in flight A=%d B=%d; want the five spread 3/2", s[0].InFlight, s[1].InFlight)
	}
	close(hold)
	for _, o := range outs {
		if err := <-o; err != nil {
			t.Fatal(err)
		}
	}
}

// A server lacking the model is passed over.
func TestChatSkipsAServerWithoutTheModel(t *testing.T) {
	a, b := fake(t, "qwen3:8b"), fake(t, "llama3.2:latest")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	for range 3 {
		reply, err := p.Chat(ctxFor(t), hello("hi"))
		if err != nil || reply.Content != "ok" {
			t.Fatalf("reply %q, err %v", reply.Content, err)
		}
	}
	if len(a.Requests()) != 0 || len(b.Requests()) != 3 {
		t.Fatalf("A got %d, B %d; want all three on B, which has the model", len(a.Requests()), len(b.Requests()))
	}
	// A model no server has: one server's answer says so, as with one server.
	_, err := p.Chat(ctxFor(t), ryo.ModelRequest{Model: "mistral", Messages: hello("hi").Messages})
	if !ryo.ModelMissing(err) || !strings.Contains(ryo.ErrorMessage(err), "ollama pull mistral") {
		t.Fatalf("err = %v; want the model missing", err)
	}
}

// A server that fails before the first token is marked down and the
// request is answered by another, once.
func TestChatMovesOnWhenAServerFailsBeforeTheFirstToken(t *testing.T) {
	for name, fail := range map[string]func(*ollamatest.Server){
		"500":     func(s *ollamatest.Server) { s.Enqueue(ollamatest.Reply{Status: 500, Error: "out of memory"}) },
		"dropped": func(s *ollamatest.Server) { s.SetDown(true) },
		"empty":   func(s *ollamatest.Server) { s.Enqueue(ollamatest.Reply{CutOff: true}) },
	} {
		t.Run(name, func(t *testing.T) {
			a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
			b.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: "from b"} })
			p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
			running(t, p)
			fail(a)
			var deltas []string
			req := hello("hi")
			req.OnDelta = func(d string) { deltas = append(deltas, d) }
			reply, err := p.Chat(ctxFor(t), req)
			if err != nil || reply.Content != "from b" || strings.Join(deltas, "") != "from b" {
				t.Fatalf("reply %q deltas %q err %v; want B's answer, once", reply.Content, deltas, err)
			}
			s := p.Servers()
			if s[0].Healthy || s[0].Failovers != 1 || !s[1].Healthy {
				t.Fatalf("servers %+v; want A down with one failover", s)
			}
		})
	}
}

// A server refusing connections counts as down, and the request goes on.
func TestChatMovesOnFromARefusedConnection(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	b := fake(t, "llama3.2")
	p := New(Config{Model: "llama3.2", Clock: clocktest.New(time.Unix(0, 0))}, slog.New(slog.DiscardHandler),
		Member{Name: "dead", Server: client(t, dead), Limit: 1}, Member{Name: "b", Server: client(t, b.URL()), Limit: 1})
	// Not running: the dead server's list is not known, so it is tried.
	reply, err := p.Chat(ctxFor(t), hello("hi"))
	if err != nil || reply.Content != "ok" {
		t.Fatalf("reply %q, err %v", reply.Content, err)
	}
	if p.Servers()[0].Healthy {
		t.Fatal("the refusing server is still thought up")
	}
}

// After the first token, a failure is the request's error: it is not
// answered twice.
func TestChatDoesNotMoveOnAfterTheFirstToken(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	a.Enqueue(ollamatest.Reply{Chunks: []string{"par", "tial"}, MidStreamError: true})
	var deltas []string
	req := hello("hi")
	req.OnDelta = func(d string) { deltas = append(deltas, d) }
	_, err := p.Chat(ctxFor(t), req)
	if ryo.ErrorCode(err) != ryo.EUNAVAILABLE {
		t.Fatalf("err = %v; want the mid-stream failure", err)
	}
	if strings.Join(deltas, "") != "partial" || len(b.Requests()) != 0 {
		t.Fatalf("deltas %q, B got %d requests; want A's part only", deltas, len(b.Requests()))
	}
}

// A server marked down is probed and takes requests again once it answers.
func TestProbeBringsAServerBack(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	clock := clocktest.New(time.Unix(0, 0))
	p := testPool(t, clock, 1, a, b)
	running(t, p)
	a.SetDown(true)
	if _, err := p.Chat(ctxFor(t), hello("hi")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, func(s []Status) bool { return !s[0].Healthy })
	ctx := ctxFor(t)
	// The first probe, half a second on, finds it still down.
	if err := clock.WaitArmed(ctx, clock.Now().Add(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	clock.Advance(500 * time.Millisecond)
	if err := clock.WaitArmed(ctx, clock.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if !p.Servers()[1].Healthy || p.Servers()[0].Healthy {
		t.Fatal("A came back while it was down")
	}
	a.SetDown(false)
	clock.Advance(time.Second)
	waitFor(t, p, func(s []Status) bool { return s[0].Healthy && s[0].Models != nil })
	// Two requests at once, one slot each: A takes one again.
	before, hold := len(a.Requests()), make(chan struct{})
	a.Enqueue(ollamatest.Reply{Hold: hold})
	b.Enqueue(ollamatest.Reply{Hold: hold})
	one, two := chats(p, ctx, hello("1")), chats(p, ctx, hello("2"))
	received(t, a, before+1)
	close(hold)
	if err := errors.Join(<-one, <-two); err != nil {
		t.Fatal(err)
	}
}

// No server is sent more requests at once than its limit; the rest wait
// in line, as long as their context allows.
func TestChatWaitsWhileEveryServerIsFull(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 2, a, b)
	running(t, p)
	hold := make(chan struct{})
	var mu sync.Mutex
	most := map[*ollamatest.Server]int{}
	var inFlight = map[*ollamatest.Server]int{}
	for _, s := range []*ollamatest.Server{a, b} {
		s.Handle(func(ollamatest.Request) ollamatest.Reply {
			mu.Lock()
			inFlight[s]++
			most[s] = max(most[s], inFlight[s])
			mu.Unlock()
			<-hold
			mu.Lock()
			inFlight[s]--
			mu.Unlock()
			return ollamatest.Reply{Content: "ok"}
		})
	}
	ctx := ctxFor(t)
	var outs []<-chan error
	for range 4 {
		outs = append(outs, chats(p, ctx, hello("hi")))
	}
	received(t, a, 2)
	received(t, b, 2)
	// A fifth waits; with a deadline that passes, it gives up.
	short, cancel := context.WithCancel(ctx)
	waiting := chats(p, short, hello("late"))
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want the waiting request's own cancellation", err)
	}
	sixth := chats(p, ctx, hello("sixth"))
	close(hold)
	for _, o := range append(outs, sixth) {
		if err := <-o; err != nil {
			t.Fatal(err)
		}
	}
	if most[a] > 2 || most[b] > 2 {
		t.Fatalf("at most %d on A, %d on B at once; limit 2", most[a], most[b])
	}
	if n := len(a.Requests()) + len(b.Requests()); n != 5 {
		t.Fatalf("%d requests reached the servers; want 5", n)
	}
}

// With every server down, a request fails at once as one to an
// unreachable server does.
func TestChatWithEveryServerDownIsUnavailable(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	a.SetDown(true)
	b.SetDown(true)
	for i := range 2 {
		_, err := p.Chat(ctxFor(t), hello("hi"))
		if !ryo.IsUnavailable(err, ryo.Model) || !strings.Contains(ryo.ErrorMessage(err), "can't reach the model server") {
			t.Fatalf("call %d: err = %v; want the model server unavailable", i, err)
		}
	}
	if _, err := p.Embed(ctxFor(t), []string{"x"}); !ryo.IsUnavailable(err, ryo.Model) {
		t.Fatalf("embed: err = %v; want unavailable", err)
	}
	if _, err := p.Installed(ctxFor(t)); !ryo.IsUnavailable(err, ryo.Model) {
		t.Fatalf("installed: err = %v; want unavailable", err)
	}
}

// A bad request is the request's fault: it does not go round the servers.
func TestChatDoesNotMoveOnFromABadRequest(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	a.Enqueue(ollamatest.Reply{Status: http.StatusBadRequest, Error: "invalid format"})
	if _, err := p.Chat(ctxFor(t), hello("hi")); ryo.ErrorCode(err) != ryo.EINVALID {
		t.Fatalf("err = %v; want invalid", err)
	}
	if len(b.Requests()) != 0 || !p.Servers()[0].Healthy {
		t.Fatalf("servers %+v; want A still up and B not asked", p.Servers())
	}
}

// Requests that wait for a server are served in the order they came.
func TestRequestsWaitInLineFirstComeFirstServed(t *testing.T) {
	a := fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a)
	running(t, p)
	hold := make(chan struct{})
	a.Enqueue(ollamatest.Reply{Content: "1", Hold: hold})
	ctx := ctxFor(t)
	outs := []<-chan error{chats(p, ctx, hello("1"))}
	received(t, a, 1)
	for i, text := range []string{"2", "3", "4"} {
		outs = append(outs, chats(p, ctx, hello(text)))
		inLine(t, p, i+1)
	}
	close(hold)
	for _, o := range outs {
		if err := <-o; err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for _, r := range a.Requests() {
		order = append(order, r.Messages[0].Content)
	}
	if strings.Join(order, "") != "1234" {
		t.Fatalf("served in the order %q; want 1234", order)
	}
}

// inLine waits until n requests wait in line.
func inLine(t *testing.T, p *Pool, n int) {
	t.Helper()
	ctx := ctxFor(t)
	for {
		p.mu.Lock()
		changed, waiting := p.changed, len(p.line)
		p.mu.Unlock()
		if waiting == n {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("%d in line; want %d", waiting, n)
		}
	}
}

// Embeddings go to a server that has the embedding model.
func TestEmbedGoesToAServerWithTheEmbeddingModel(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	b.Install("embed", ollamatest.Model{Family: "nomic-bert", Capabilities: []string{"embedding"}})
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	for range 3 {
		vecs, err := p.Embed(ctxFor(t), []string{"hello", "world"})
		if err != nil || len(vecs) != 2 {
			t.Fatalf("vecs %d, err %v", len(vecs), err)
		}
	}
	if s := p.Servers(); s[0].Requests != 0 || s[1].Requests != 3 {
		t.Fatalf("servers %+v; want the three on B, which has the model", s)
	}
	models, err := p.Installed(ctxFor(t))
	if err != nil || len(models) != 2 {
		t.Fatalf("installed %+v, %v; want llama3.2 once and embed", models, err)
	}
	if _, err := p.Capabilities(ctxFor(t), "embed"); err != nil {
		t.Fatalf("capabilities of a model on B alone: %v", err)
	}
}

// A model that only a server now down has is out of reach, not missing.
func TestChatForAModelOnlyADownServerHasIsUnavailable(t *testing.T) {
	a, b := fake(t, "llama3.2", "qwen3:8b"), fake(t, "llama3.2")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	running(t, p)
	a.SetDown(true)
	p.down(p.members[0], errors.New("test: down"))
	_, err := p.Chat(ctxFor(t), ryo.ModelRequest{Model: "qwen3:8b", Messages: hello("hi").Messages})
	if !ryo.IsUnavailable(err, ryo.Model) || ryo.ModelMissing(err) {
		t.Fatalf("err = %v; want the model server unavailable", err)
	}
	if len(b.Requests()) != 0 {
		t.Fatalf("B, which lacks the model, was asked %d times", len(b.Requests()))
	}
}

// Check says how many servers are up and have the model.
func TestCheckCountsTheServersUpWithTheModel(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "qwen3:8b")
	p := testPool(t, clocktest.New(time.Unix(0, 0)), 1, a, b)
	if got, err := p.Check(ctxFor(t)); err != nil || got != "2 of 2 servers up, 1 with llama3.2" {
		t.Fatalf("Check = %q, %v", got, err)
	}
	a.SetDown(true)
	if _, err := p.Check(ctxFor(t)); err == nil || !strings.Contains(err.Error(), `model "llama3.2" is not installed on any of the 1 servers up`) {
		t.Fatalf("Check with the model's server down = %v", err)
	}
	b.SetDown(true)
	if _, err := p.Check(ctxFor(t)); err == nil || !strings.Contains(err.Error(), "none of the 2 model servers answers") {
		t.Fatalf("Check with every server down = %v", err)
	}
}

// A server that gives no first token in time is marked down and the
// request goes on to another.
func TestChatMovesOnWhenNoFirstTokenComesInTime(t *testing.T) {
	a, b := fake(t, "llama3.2"), fake(t, "llama3.2")
	hold := make(chan struct{})
	defer close(hold)
	a.Enqueue(ollamatest.Reply{Content: "late", Hold: hold})
	u, _ := url.Parse(a.URL())
	slow := ollama.New(ollama.Config{Host: u, Model: "llama3.2", ConnectTimeout: 5 * time.Second,
		FirstTokenTimeout: 100 * time.Millisecond, Timeout: time.Minute})
	p := New(Config{Model: "llama3.2", Clock: clocktest.New(time.Unix(0, 0))}, slog.New(slog.DiscardHandler),
		Member{Name: "a", Server: slow, Limit: 1}, Member{Name: "b", Server: client(t, b.URL()), Limit: 1})
	reply, err := p.Chat(ctxFor(t), hello("hi"))
	if err != nil || reply.Content != "ok" || len(a.Requests()) != 1 {
		t.Fatalf("reply %q, err %v, A asked %d times; want B's answer after A's silence", reply.Content, err, len(a.Requests()))
	}
	if s := p.Servers(); s[0].Healthy || s[0].Failovers != 1 {
		t.Fatalf("servers %+v; want A down", s)
	}
}
