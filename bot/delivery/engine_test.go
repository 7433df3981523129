package delivery

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
)

// tries records when a fake call was tried and answers from a script.
type tries struct {
	mu     sync.Mutex
	clock  *clocktest.Clock
	at     []time.Time
	answer []error // the answers of the tries in turn; nil once used up
	tried  chan struct{}
}

func newTries(c *clocktest.Clock, answers ...error) *tries {
	return &tries{clock: c, answer: answers, tried: make(chan struct{}, 100)}
}

func (r *tries) call(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at = append(r.at, r.clock.Now())
	r.tried <- struct{}{}
	if len(r.answer) == 0 {
		return nil
	}
	err := r.answer[0]
	r.answer = r.answer[1:]
	return err
}

func (r *tries) times() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for _, at := range r.at {
		out = append(out, at.Sub(t0))
	}
	return out
}

func startEngine(t *testing.T, l limits) (*engine, *clocktest.Clock) {
	t.Helper()
	c := clocktest.New(t0)
	e := newEngine(l, 5*time.Second, "7234567890:SECRETTOKENxxxxxxxxxxxxxx", slog.New(slog.NewTextHandler(io.Discard, nil)), c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return e, c
}

// await runs do in the background and returns its outcome channel.
func await(e *engine, j *apiCall) <-chan error {
	out := make(chan error, 1)
	go func() { out <- e.do(context.Background(), j) }()
	return out
}

func waitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the call never ended")
		return nil
	}
}

func waitTry(t *testing.T, r *tries) {
	t.Helper()
	select {
	case <-r.tried:
	case <-time.After(10 * time.Second):
		t.Fatal("no try")
	}
}

func advance(t *testing.T, c *clocktest.Clock, to time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitArmed(ctx, t0.Add(to)); err != nil {
		t.Fatal(err)
	}
	c.Advance(t0.Add(to).Sub(c.Now()))
}

// A 429 delays the call by exactly its retry_after and loses nothing.
func TestEngineWaitsExactlyRetryAfter(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	r := newTries(c, &tg.TooManyRequestsError{Message: "Too Many Requests: retry after 7", RetryAfter: 7},
		&tg.TooManyRequestsError{Message: "Too Many Requests: retry after 3", RetryAfter: 3})
	done := await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call})
	waitTry(t, r)
	advance(t, c, 7*time.Second)
	waitTry(t, r)
	advance(t, c, 10*time.Second)
	if err := waitErr(t, done); err != nil {
		t.Fatalf("the call failed: %v", err)
	}
	if got := r.times(); len(got) != 3 || got[0] != 0 || got[1] != 7*time.Second || got[2] != 10*time.Second {
		t.Fatalf("tries at %v; want 0s, 7s, 10s", got)
	}
}

func TestEngineRetriesServerErrorsThenGivesUp(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	bad := errors.New("error response from telegram for method sendMessage, 502 Bad Gateway")
	r := newTries(c, bad, bad, bad)
	done := await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call})
	waitTry(t, r)
	advance(t, c, 500*time.Millisecond)
	waitTry(t, r)
	advance(t, c, 1500*time.Millisecond)
	err := waitErr(t, done)
	if !ryo.IsUnavailable(err, ryo.Telegram) || len(r.times()) != callTries {
		t.Fatalf("err = %v after tries at %v; want unavailable after %d tries with backoff", err, r.times(), callTries)
	}
}

// A message whose sending may have reached Telegram is not sent again.
func TestEngineNeverResendsAMessageThatMayHaveArrived(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	r := newTries(c, &net.OpError{Op: "read", Err: errors.New("connection reset")})
	err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call}))
	if err == nil || len(r.times()) != 1 {
		t.Fatalf("err = %v after %d tries; want one try and a failure", err, len(r.times()))
	}
	edit := newTries(c, &net.OpError{Op: "read", Err: errors.New("connection reset")})
	done := await(e, &apiCall{chat: alicePM, class: urgent, method: "editMessageText", call: edit.call})
	waitTry(t, edit)
	advance(t, c, 500*time.Millisecond)
	if err := waitErr(t, done); err != nil || len(edit.times()) != 2 {
		t.Fatalf("edit: err = %v after %d tries; an edit is safe to repeat", err, len(edit.times()))
	}
}

func TestEngineWithdrawsAQueuedCallWhenItsCallerLeaves(t *testing.T) {
	e, c := startEngine(t, limits{ChatEvery: time.Minute, ChatBurst: 1})
	first := newTries(c)
	if err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", call: first.call})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	second := newTries(c)
	out := make(chan error, 1)
	go func() {
		out <- e.do(ctx, &apiCall{chat: alicePM, class: status, method: "sendMessage", call: second.call})
	}()
	if err := c.WaitArmed(context.Background(), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := waitErr(t, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want the withdrawn call to report the caller's cancellation", err)
	}
	c.Advance(time.Hour)
	if n := len(second.times()); n != 0 {
		t.Fatalf("the withdrawn call was tried %d times", n)
	}
}

func TestEngineGivesEveryCallADeadline(t *testing.T) {
	c := clocktest.New(t0)
	e := newEngine(defaultLimits(), 20*time.Millisecond, "", slog.New(slog.DiscardHandler), c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.run(ctx)
	err := e.do(context.Background(), &apiCall{chat: alicePM, class: urgent, method: "getMe", creating: true,
		call: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want the call's own deadline", err)
	}
}

// An upload's deadline leaves time for its bytes on a slow line: a 10 MB
// picture from a home server with a 1 Mbit/s upstream takes 80 s, far
// past an ordinary call's.
func TestEngineGivesAnUploadTimeForItsBytes(t *testing.T) {
	c := clocktest.New(t0)
	e := newEngine(defaultLimits(), 15*time.Second, "", slog.New(slog.DiscardHandler), c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.run(ctx)
	var left time.Duration
	err := e.do(context.Background(), &apiCall{chat: alicePM, class: urgent, method: "sendPhoto", creating: true, upload: 10 << 20,
		call: func(ctx context.Context) error {
			deadline, _ := ctx.Deadline()
			left = time.Until(deadline)
			return nil
		}})
	if err != nil || left < 80*time.Second {
		t.Fatalf("the upload had %v, %v; want over 80 s", left, err)
	}
}

func TestEngineScrubsTheToken(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	r := newTries(c, errors.New("Cannot POST /bot7234567890:SECRETTOKENxxxxxxxxxxxxxx/sendMessage"))
	err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call}))
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("err = %v; want it without the token", err)
	}
}

// Queued calls that nobody waits for still end when the engine stops.
func TestEngineStopEndsQueuedCalls(t *testing.T) {
	c := clocktest.New(t0)
	e := newEngine(limits{ChatEvery: time.Hour, ChatBurst: 1}, time.Second, "", slog.New(slog.DiscardHandler), c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.run(ctx); close(done) }()
	r := newTries(c)
	waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "a", call: r.call}))
	ended := make(chan error, 1)
	e.submit(&apiCall{chat: alicePM, class: progress, method: "b", ctx: context.Background(), call: r.call,
		done: func(err error) { ended <- err }})
	cancel()
	<-done
	if err := waitErr(t, ended); !errors.Is(err, errStopped) {
		t.Fatalf("queued call ended with %v; want stopped", err)
	}
	if err := e.do(context.Background(), &apiCall{chat: alicePM, class: urgent, method: "c", call: r.call}); !errors.Is(err, errStopped) {
		t.Fatalf("a call after the stop = %v", err)
	}
}

// A progress call whose turn ended is ended at once, not when the chat's
// budget or a pause would next let it go.
func TestEngineEndsAnAbandonedProgressAtOnce(t *testing.T) {
	e, c := startEngine(t, limits{ChatEvery: time.Hour, ChatBurst: 1})
	r := newTries(c)
	waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", call: r.call}))
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	e.submit(&apiCall{chat: alicePM, class: progress, key: "message:1", method: "editMessageText", ctx: ctx,
		expires: t0.Add(time.Hour), call: r.call, done: func(err error) { ended <- err }})
	cancel()
	if err := waitErr(t, ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned progress ended with %v; want its caller's cancellation", err)
	}
	if n := len(r.times()); n != 1 {
		t.Fatalf("%d calls went; the abandoned progress must not", n)
	}
}

// A call for a chat the fence refuses is not sent — asked as it is about
// to go, not when it was queued — and ends at once with the fence's
// error, not tried again; calls for other chats go on.
func TestEngineSendsNothingTheFenceRefuses(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	lost := errors.New("another replica holds the chat")
	var mu sync.Mutex
	refused := map[int64]bool{}
	e.fence = func(chat int64) error {
		mu.Lock()
		defer mu.Unlock()
		if refused[chat] {
			return lost
		}
		return nil
	}
	r := newTries(c, nil, nil, nil)
	if err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call})); err != nil {
		t.Fatalf("a call the fence lets go: %v", err)
	}
	mu.Lock()
	refused[alicePM] = true
	mu.Unlock()
	err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "editMessageText", call: r.call}))
	if !errors.Is(err, lost) || ryo.IsUnavailable(err, ryo.Telegram) {
		t.Fatalf("a call the fence refuses ended with %v; want the fence's error, not an outage", err)
	}
	if n := len(r.times()); n != 1 {
		t.Fatalf("%d calls reached Telegram; want only the first", n)
	}
	if err := waitErr(t, await(e, &apiCall{chat: alicePM + 1, class: urgent, method: "sendMessage", creating: true, call: r.call})); err != nil {
		t.Fatalf("a call for another chat: %v", err)
	}
}
