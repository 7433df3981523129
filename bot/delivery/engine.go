package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	tg "github.com/go-telegram/bot"
	"go.opentelemetry.io/otel/trace"

	"github.com/ryo-bot/ryo"
)

// Engine defaults.
const (
	maxInFlight = 32 // calls on the wire at once, over all chats
	callTries   = 3  // tries of a call that fails for a passing reason other than a 429
)

// engine sends every Telegram call the bot makes, through one schedule:
// each chat's calls in order and within its budget, all of them within the
// bot-wide one, urgent calls first. It retries what is safe to retry: a 429
// waits exactly its retry_after and is never given up while its caller
// waits; Telegram's own 5xx answers and connections never made are tried
// again with backoff; a call that may have reached Telegram and would show
// something twice is not. Every call has a deadline.
type engine struct {
	clock   ryo.Clock
	timeout time.Duration
	token   string // scrubbed from errors
	log     *slog.Logger

	observer Observer     // told of each try; nil for nobody
	ledger   Ledger       // shares calls in groups with other processes; nil for none
	tracer   trace.Tracer // each call a traced turn waits for is a span; nil for none (span.go)
	fence    func(chat int64) error

	ledgerWarned time.Time // when a ledger that failed was last logged

	mu    sync.Mutex
	s     *schedule
	wake  chan struct{}
	slots chan struct{}
	calls sync.WaitGroup
}

func newEngine(limits limits, timeout time.Duration, token string, log *slog.Logger, c ryo.Clock) *engine {
	return &engine{clock: c, timeout: timeout, token: token, log: log, s: newSchedule(limits),
		wake: make(chan struct{}, 1), slots: make(chan struct{}, maxInFlight)}
}

// run sends calls until ctx ends, then ends the calls still queued and
// waits for those in flight.
func (e *engine) run(ctx context.Context) {
	defer e.stop()
	for {
		select {
		case e.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		e.mu.Lock()
		j, wake := e.s.next(e.clock.Now())
		ended := e.s.takeFinished()
		e.mu.Unlock()
		e.tell(ended)
		if j != nil {
			e.calls.Add(1)
			go e.send(j)
			continue
		}
		<-e.slots
		if !e.sleep(ctx, wake) {
			return
		}
	}
}

// sleep waits until wake (zero: until something changes) or ctx ends.
func (e *engine) sleep(ctx context.Context, wake time.Time) bool {
	var fire <-chan time.Time
	if !wake.IsZero() {
		c, stop := e.clock.Timer(wake.Sub(e.clock.Now()))
		defer stop()
		fire = c
	}
	select {
	case <-e.wake:
	case <-fire:
	case <-ctx.Done():
		return false
	}
	return true
}

func (e *engine) stop() {
	e.calls.Wait()
	e.mu.Lock()
	var ended []finished
	for _, c := range e.s.waiting {
		for _, j := range c.queue {
			j.queued = false
			ended = append(ended, finished{j, errStopped})
		}
		c.queue = nil
	}
	e.s.stopped = true
	e.mu.Unlock()
	e.tell(ended)
}

func (e *engine) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *engine) tell(ended []finished) {
	for _, f := range ended {
		if f.j.done != nil {
			f.j.done(f.err)
		}
	}
}

// submit queues j without waiting for it. When j's caller gives up, the
// schedule looks again at once, so that the call is ended then.
func (e *engine) submit(j *apiCall) {
	e.learn(j)
	if j.ctx != nil {
		unwatch, done := context.AfterFunc(j.ctx, e.poke), j.done
		j.done = func(err error) {
			unwatch()
			if done != nil {
				done(err)
			}
		}
	}
	e.mu.Lock()
	if e.s.stopped {
		e.mu.Unlock()
		e.tell([]finished{{j, errStopped}})
		return
	}
	e.s.add(j)
	ended := e.s.takeFinished()
	e.mu.Unlock()
	e.tell(ended)
	e.poke()
}

// Ledger shares the calls made in groups with the other ryo processes on
// the database — the one before a restart, other replicas — so that
// together they keep to a group's twenty calls a minute.
type Ledger interface {
	// Record notes that a call in group chat counts until until. It must
	// not block.
	Record(chat int64, until time.Time)
	// Others returns until when each call other processes made in chat
	// counts, for those that still do.
	Others(ctx context.Context, chat int64) ([]time.Time, error)
}

// learnEvery is how often at most a group quiet here is read again from
// the ledger: another process may have called there meanwhile only if the
// group was handed over, which takes longer.
const learnEvery = time.Second

// learn reads, before a call in a group with nothing queued or on its way
// here, the calls other processes made there lately: they count against
// the group's minute too. A ledger that cannot be read leaves the group
// as this process knows it.
func (e *engine) learn(j *apiCall) {
	if e.ledger == nil || !isGroup(j.chat) || e.s.limits.GroupPerMinute <= 0 {
		return
	}
	e.mu.Lock()
	c := e.s.chats[j.chat]
	quiet := c == nil || len(c.queue) == 0 && len(c.flying) == 0 && e.clock.Now().Sub(c.learned) >= learnEvery
	e.mu.Unlock()
	if !quiet {
		return
	}
	ctx := j.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	others, err := e.ledger.Others(ctx, j.chat)
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.clock.Now()
	if err != nil {
		if now.Sub(e.ledgerWarned) >= time.Minute {
			e.ledgerWarned = now
			e.log.Warn("calls in groups by other ryo processes unknown: this one counts only its own", "err", err)
		}
		return
	}
	c = e.s.chat(j.chat)
	c.minute.others, c.learned = others, now
}

// do queues j and waits for its outcome. When ctx ends first, a call still
// queued is withdrawn and never sent; one already on its way is waited for,
// so that the caller knows whether it happened.
func (e *engine) do(ctx context.Context, j *apiCall) (err error) {
	ctx, span := e.startCall(ctx, j)
	defer func() { endCall(span, j, err) }()
	result := make(chan error, 1)
	j.ctx, j.done = ctx, func(err error) { result <- err }
	e.submit(j)
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		e.mu.Lock()
		withdrawn := e.s.withdraw(j)
		e.mu.Unlock()
		if withdrawn {
			return ctx.Err()
		}
		return <-result
	}
}

// minUploadRate is the slowest line an upload's deadline allows for:
// about a megabit a second, the upstream of a poor home connection, where
// a self-hosted bot may well run.
const minUploadRate = 128 << 10 // bytes a second

// uploadTime is how much longer than an ordinary call sending n bytes of
// a file may take.
func uploadTime(n int) time.Duration {
	return time.Duration(n) * time.Second / minUploadRate
}

// send makes one try of j, with a deadline, and settles what follows.
func (e *engine) send(j *apiCall) {
	defer e.calls.Done()
	err := e.fenced(j)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(j.ctx), e.timeout+uploadTime(j.upload))
		err = Scrub(j.call(ctx), e.token)
		cancel()
		e.observe(j, err)
	}
	e.mu.Lock()
	now := e.clock.Now()
	final := e.settle(j, err, now)
	var tooMany *tg.TooManyRequestsError
	refused, minute := errors.As(err, &tooMany), j.minute
	e.s.released(j, now, refused)
	ended := e.s.takeFinished()
	e.mu.Unlock()
	if e.ledger != nil && minute != nil && !refused {
		e.ledger.Record(j.chat, minute.until)
	}
	<-e.slots
	if final {
		j.done(e.describe(j, err))
	}
	e.tell(ended)
	e.poke()
}

// fencedCall is the outcome of a call the fence kept from going out.
type fencedCall struct{ err error }

func (f *fencedCall) Error() string { return "not sent: " + f.err.Error() }
func (f *fencedCall) Unwrap() error { return f.err }

// fenced asks the fence whether j may go out now, as late as can be: a
// call queued while this process could speak in the chat may have waited
// past that.
func (e *engine) fenced(j *apiCall) error {
	if e.fence == nil || j.chat == 0 {
		return nil
	}
	if err := e.fence(j.chat); err != nil {
		return &fencedCall{err}
	}
	return nil
}

// settle decides what a try's outcome means: final reports whether j is
// finished; otherwise it is queued again.
func (e *engine) settle(j *apiCall, err error, now time.Time) (final bool) {
	var fenced *fencedCall
	if err == nil || errors.As(err, &fenced) {
		return true
	}
	var tooMany *tg.TooManyRequestsError
	if errors.As(err, &tooMany) {
		wait := time.Duration(max(tooMany.RetryAfter, 1)) * time.Second
		e.log.WarnContext(j.ctx, "telegram flood control: waiting", "method", j.method, "chat_id", j.chat, "retry_after", wait)
		waitedSpan(j, wait)
		e.s.tooMany(j, wait, now)
		if j.class == typing || j.ctx.Err() != nil {
			return true
		}
		e.s.requeue(j)
		return false
	}
	j.attempts++
	out, wait := classify(err, j.attempts)
	if !retryable(j.creating, out) || j.attempts >= callTries || j.ctx.Err() != nil {
		return true
	}
	e.log.WarnContext(j.ctx, "telegram call failed; retrying", "method", j.method, "chat_id", j.chat, "retry_in", wait, "err", err)
	retriedSpan(j, wait, err)
	j.notBefore = now.Add(wait)
	e.s.requeue(j)
	return false
}

// describe is the error a finished call reports: failures that are worth
// trying again later are ryo.Unavailable(ryo.Telegram).
func (e *engine) describe(j *apiCall, err error) error {
	var fenced *fencedCall
	if err == nil || errors.As(err, &fenced) {
		return err
	}
	out, _ := classify(err, j.attempts)
	var tooMany *tg.TooManyRequestsError
	if retryable(j.creating, out) || errors.As(err, &tooMany) {
		return fmt.Errorf("telegram %s: %w", j.method, ryo.Unavailable(ryo.Telegram, err))
	}
	return fmt.Errorf("telegram %s: %w", j.method, err)
}
