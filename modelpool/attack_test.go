package modelpool

import (
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
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
