package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/stages"
)

const apology = "Sorry — something went wrong on my side while handling that message. It has been kept, and my admin can have me answer it later."

// maxOutage is how long an update keeps waiting for Telegram to work again
// before it is given up. Waiting for the database has no limit: nothing can
// be done without it.
const maxOutage = 10 * time.Minute

// process runs one attempt at an update: claim it (once per process), handle
// it, mark it done or failed. It says how long to wait before the next
// attempt, or none: the update is finished, goes on in its chat's queue
// (a press), or is left unfinished in the inbox for the next start
// (shutdown).
func (b *Bot) process(ctx context.Context, j *job) afterRun {
	ctx = turnContext(ctx, j) // span.go: its log lines name the turn
	log := b.log.With("update_id", j.id, "chat_id", j.chat)
	if j.claimed && errors.Is(b.leases.fence(j.chat, b.cfg.Clock.Now()), memory.ErrLeaseLost) {
		// Claimed here before a heartbeat found its chat taken over, it
		// waited meanwhile — a press's conversation behind the turn called
		// off, an update waiting out an outage — and is the other
		// replica's now: run here too, a confirmed action would run twice.
		log.WarnContext(ctx, "another replica took this update's chat over while it ran; it is answered there")
		return afterRun{}
	}
	if !j.claimed {
		if wait, ok := b.claim(ctx, log, j); !ok {
			return afterRun{retryIn: wait}
		}
	}
	ctx, span := b.startUpdate(ctx, j)
	err := b.handleSafely(ctx, j)
	endUpdate(span, err)
	var wait errWait
	switch {
	case err == nil:
		if !j.finished { // a turn that stored its answer marked it done then
			b.finish(ctx, log, j.id, memory.StateDone, "")
		}
		return afterRun{}
	case errors.Is(err, errGoOnInChat):
		return afterRun{inChat: true}
	case errors.As(err, &wait):
		log.DebugContext(ctx, "a photo of an album waits for the album's other parts", "wait", wait.d)
		return afterRun{retryIn: wait.d}
	case errors.Is(err, memory.ErrLeaseLost), errors.Is(context.Cause(ctx), memory.ErrLeaseLost): // it froze, or lost the database longer than a lease lasts
		log.WarnContext(ctx, "another replica took this update's chat over while it ran; it is answered there")
		return afterRun{}
	case ctx.Err() != nil:
		log.InfoContext(ctx, "update interrupted by shutdown; it resumes at the next start")
		return afterRun{}
	case ryo.IsUnavailable(err, ryo.Database),
		ryo.IsUnavailable(err, ryo.Telegram) && j.outage(b.cfg.Clock.Now()) < maxOutage:
		wait := j.retryIn(b.cfg.Clock.Now())
		log.WarnContext(ctx, "update interrupted by an outage; will retry", "retry_in", wait, "err", err)
		return afterRun{retryIn: wait}
	}
	log.ErrorContext(ctx, "update failed; it is kept in the dead letter for an admin to retry (/deadletter)", "err", err)
	b.fail(ctx, log, j, err.Error())
	return afterRun{}
}

// errGoOnInChat is returned by a press, on its own lane, whose conversation
// goes on: the rest of it runs in its chat's queue; and by a turn that gives
// way to someone else's question: it runs again at the end of that queue.
var errGoOnInChat = errors.New("the conversation goes on in the chat's queue")

// claim takes the update for this process. It returns ok false, with a wait
// when the claim should be tried again, when the update is not to run now.
func (b *Bot) claim(ctx context.Context, log *slog.Logger, j *job) (time.Duration, bool) {
	c, ok, err := b.db.ClaimUpdate(ctx, j.id)
	switch {
	case err != nil && ctx.Err() != nil:
		return 0, false
	case err != nil:
		wait := j.retryIn(b.cfg.Clock.Now())
		log.WarnContext(ctx, "cannot claim update; will retry", "retry_in", wait, "err", err)
		return wait, false
	case !ok:
		return 0, false // finished by an earlier run
	}
	j.claimed, j.raw, j.since = true, c.Raw, time.Time{}
	if c.Attempts > b.cfg.MaxAttempts {
		log.ErrorContext(ctx, "giving up on an update that was started too often; it is kept in the dead letter for an admin to retry (/deadletter)",
			"attempts", c.Attempts)
		b.fail(ctx, log, j, fmt.Sprintf("gave up after %d attempts", c.Attempts))
		return 0, false
	}
	return 0, true
}

// retryIn starts or continues a run of failures and says when to try again.
func (j *job) retryIn(now time.Time) time.Duration {
	if j.since.IsZero() {
		j.since = now
	}
	return ryo.Backoff(j.attempt)
}

// outage is how long the current run of failures has lasted.
func (j *job) outage(now time.Time) time.Duration {
	if j.since.IsZero() {
		return 0
	}
	return now.Sub(j.since)
}

// errPanic marks a recovered panic.
var errPanic = errors.New("panic")

func (b *Bot) handleSafely(ctx context.Context, j *job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b.log.ErrorContext(ctx, "panic while handling an update", "update_id", j.id, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return b.handle(ctx, j)
}

// fail marks the update failed and tells the person, if there is one to
// tell: in the status message the update posted, when it got that far, so
// that nothing is left showing "Thinking…".
func (b *Bot) fail(ctx context.Context, log *slog.Logger, j *job, reason string) {
	err := b.record(ctx, "fail update", func(ctx context.Context) error { return b.db.FailUpdate(ctx, j.id, reason) })
	if err != nil {
		log.ErrorContext(ctx, "cannot mark update failed; it runs again at the next start", "err", err)
	}
	place, replyTo, ok := b.addressee(j.raw)
	if !ok {
		return
	}
	turn, _ := b.db.Turn(ctx, j.id) // without it the apology comes as a new message
	status := turn.StatusMessageID
	if len(turn.Parts) > 0 && turn.Parts[0] == status {
		status = 0 // it carries part of the answer: the apology comes on its own
	}
	err = j.w.idle(func() error {
		w := b.wordsOfRaw(ctx, j.raw)
		return b.stages.Adopt(stages.Start{Place: place, ReplyTo: replyTo, Adopt: status, Words: w}).Fail(ctx, w.Sprintf(apology))
	})
	if err != nil {
		log.WarnContext(ctx, "could not tell the user about a failure", "err", err)
	}
}

func (b *Bot) finish(ctx context.Context, log *slog.Logger, id int64, state memory.UpdateState, reason string) {
	err := b.record(ctx, "finish update", func(ctx context.Context) error {
		return b.db.FinishUpdate(ctx, id, state, reason)
	})
	if err != nil {
		log.ErrorContext(ctx, "cannot mark update finished; it runs again at the next start", "state", state, "err", err)
	}
}

// record writes down what the person has already been shown. It must not be
// lost to a shutdown or a short outage, so it runs without the caller's
// cancellation, retrying while the database is away, for at most a minute.
func (b *Bot) record(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	return b.retry(ctx, what, func() error { return fn(ctx) })
}
