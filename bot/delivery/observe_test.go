package delivery

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"
)

// observed keeps what an Observer was told.
type observed struct {
	mu    sync.Mutex
	calls []string
}

func (o *observed) TelegramCalled(method, outcome string, retryAfter time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf("%s %s %v", method, outcome, retryAfter))
}

func (o *observed) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return fmt.Sprint(o.calls)
}

// Every try on the wire is told, a 429 with what it asked to wait.
func TestEngineTellsEachTry(t *testing.T) {
	e, c := startEngine(t, defaultLimits())
	o := &observed{}
	e.observer = o
	r := newTries(c, &tg.TooManyRequestsError{Message: "Too Many Requests: retry after 7", RetryAfter: 7})
	done := await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: r.call})
	waitTry(t, r)
	advance(t, c, 7*time.Second)
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	blocked := newTries(c, fmt.Errorf("%w, Forbidden: bot was blocked by the user", tg.ErrorForbidden))
	if err := waitErr(t, await(e, &apiCall{chat: alicePM, class: urgent, method: "sendMessage", creating: true, call: blocked.call})); !errors.Is(err, tg.ErrorForbidden) {
		t.Fatalf("err = %v", err)
	}
	if got, want := o.String(), "[sendMessage too_many_requests 7s sendMessage ok 0s sendMessage forbidden 0s]"; got != want {
		t.Fatalf("observed %s; want %s", got, want)
	}
}
