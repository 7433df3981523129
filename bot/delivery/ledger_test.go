package delivery

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
)

// ledger is a shared record of group calls, as the database keeps it; each
// process sees it through a view of its own.
type ledger struct {
	mu    sync.Mutex
	calls []ledgerCall
	err   error // every read fails with it when set
}

type ledgerCall struct {
	process string
	chat    int64
	until   time.Time
}

type ledgerView struct {
	l       *ledger
	process string
}

func (v ledgerView) Record(chat int64, until time.Time) {
	v.l.mu.Lock()
	defer v.l.mu.Unlock()
	v.l.calls = append(v.l.calls, ledgerCall{v.process, chat, until})
}

func (v ledgerView) Others(_ context.Context, chat int64) ([]time.Time, error) {
	v.l.mu.Lock()
	defer v.l.mu.Unlock()
	if v.l.err != nil {
		return nil, v.l.err
	}
	var out []time.Time
	for _, c := range v.l.calls {
		if c.process != v.process && c.chat == chat {
			out = append(out, c.until)
		}
	}
	return out, nil
}

// engineOn starts an engine on clock c whose group calls go to l as
// process.
func engineOn(t *testing.T, c *clocktest.Clock, l limits, shared *ledger, process string) *engine {
	t.Helper()
	e := newEngine(l, 5*time.Second, "7234567890:SECRETTOKENxxxxxxxxxxxxxx", slog.New(slog.NewTextHandler(io.Discard, nil)), c)
	e.ledger = ledgerView{shared, process}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return e
}

const busyGroup = int64(-1002174270182)

// A ryo that starts again, or a replica that takes a group over, counts
// the calls the other made there in the last minute: the group's budget
// is the group's, not the process's.
func TestAGroupsMinuteOutlivesTheProcessThatSpentIt(t *testing.T) {
	c := clocktest.New(t0)
	shared := &ledger{}
	l := limits{GroupPerMinute: 3}
	before := engineOn(t, c, l, shared, "before")
	r := newTries(c)
	for range 3 {
		if err := waitErr(t, await(before, &apiCall{chat: busyGroup, class: urgent, method: "sendMessage", creating: true, call: r.call})); err != nil {
			t.Fatal(err)
		}
	}

	after := engineOn(t, c, l, shared, "after")
	next := newTries(c)
	done := await(after, &apiCall{chat: busyGroup, class: urgent, method: "sendMessage", creating: true, call: next.call})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WaitArmed(ctx, t0.Add(time.Minute)); err != nil {
		t.Fatalf("the new process does not wait for the group's minute: %v (tried at %v)", err, next.times())
	}
	if got := next.times(); len(got) != 0 {
		t.Fatalf("the new process called at %v, inside the minute the old one spent", got)
	}
	c.Advance(time.Minute)
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	if got := next.times(); len(got) != 1 || got[0] != time.Minute {
		t.Fatalf("tried at %v, want once at 1m", got)
	}
}

// A ledger that cannot be read costs nothing but the shared count: the
// call goes out on what this process knows.
func TestALedgerThatFailsLetsCallsGo(t *testing.T) {
	c := clocktest.New(t0)
	shared := &ledger{calls: []ledgerCall{{"before", busyGroup, t0.Add(time.Minute)}}, err: errors.New("database away")}
	e := engineOn(t, c, limits{GroupPerMinute: 1}, shared, "after")
	r := newTries(c)
	if err := waitErr(t, await(e, &apiCall{chat: busyGroup, class: urgent, method: "sendMessage", creating: true, call: r.call})); err != nil {
		t.Fatal(err)
	}
	if got := r.times(); len(got) != 1 || got[0] != 0 {
		t.Fatalf("tried at %v, want at once", got)
	}
}
