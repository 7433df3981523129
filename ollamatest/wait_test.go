package ollamatest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo/ollamatest"
)

func TestWait(t *testing.T) {
	t.Run("AlreadyTrue", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		if err := s.Wait(Context(t), func() bool { return true }); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Requests", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		c := NewClient(t, s)
		results := make([]<-chan chatResult, 3)
		for i := range results {
			results[i] = GoChat(Context(t), c, User("llama3.2", fmt.Sprint("hi ", i)))
		}
		WaitRequests(t, s, 3)
		for _, ch := range results {
			if r := <-ch; r.err != nil {
				t.Error(r.err)
			}
		}
	})
	t.Run("ReplyFinished", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		hold := make(chan struct{})
		s.Enqueue(ollamatest.Reply{Content: "ok", Hold: hold})
		result := GoChat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
		WaitRequests(t, s, 1)
		// The request is in; the only state change left is the reply
		// finishing, which the first call to cond sets off.
		calls := 0
		err := s.Wait(Context(t), func() bool {
			calls++
			if calls == 1 {
				close(hold)
			}
			return calls > 1
		})
		if err != nil {
			t.Fatal(err)
		}
		if r := <-result; r.err != nil {
			t.Fatal(r.err)
		}
	})
	t.Run("Handled", func(t *testing.T) {
		// A test that counts requests in its handler and waits for the
		// count: the request is recorded (a state change) before the
		// handler runs, so a Wait that checks in between must be woken
		// again once the handler has run, or it sleeps through a reply
		// held until it returns.
		s := MustStart(t, "llama3.2")
		hold := make(chan struct{})
		defer close(hold)
		checkedIn := make(chan struct{})
		var mu sync.Mutex
		asked := 0
		s.Handle(func(ollamatest.Request) ollamatest.Reply {
			<-checkedIn // Wait has seen the request and not the count
			mu.Lock()
			defer mu.Unlock()
			asked++
			return ollamatest.Reply{Content: "ok", Hold: hold}
		})
		GoChat(Context(t), NewClient(t, s), User("llama3.2", "hi"))
		var once sync.Once
		err := s.Wait(Context(t), func() bool {
			mu.Lock()
			defer mu.Unlock()
			if len(s.Requests()) == 1 && asked == 0 {
				once.Do(func() { close(checkedIn) })
			}
			return asked == 1
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	t.Run("Show", func(t *testing.T) {
		// A model's details asked for (a vision check) is a change too:
		// asked after cond saw none and before Wait sleeps, only the
		// request itself can wake it.
		s := MustStart(t, "llama3.2")
		c := NewClient(t, s)
		asked := false
		err := s.Wait(Context(t), func() bool {
			n := s.Shows()
			if n == 0 && !asked {
				asked = true
				if _, err := c.Show(Context(t), &api.ShowRequest{Model: "llama3.2"}); err != nil {
					t.Error(err)
				}
			}
			return n == 1
		})
		if err != nil {
			t.Fatalf("the show did not wake the wait: %v", err)
		}
	})
	t.Run("ContextEnds", func(t *testing.T) {
		s := MustStart(t, "llama3.2")
		ctx, cancel := context.WithCancel(Context(t))
		cancel()
		err := s.Wait(ctx, func() bool { return false })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want one wrapping context.Canceled", err)
		}
	})
}
