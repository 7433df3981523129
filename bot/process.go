package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/ryo-bot/ryo/memory"
)

const apology = "Sorry — something went wrong on my side while handling that message. It has been logged."

// process runs one update from the inbox: claim it, handle it, mark it done
// or failed. While the database or Telegram is away the update waits and is
// tried again; at shutdown it is left unfinished for the next start.
func (b *Bot) process(ctx context.Context, id int64) {
	log := b.log.With("update_id", id)
	var claim memory.Claim
	var ok bool
	err := b.retry(ctx, "claim update", func() error {
		var err error
		claim, ok, err = b.db.ClaimUpdate(ctx, id)
		return err
	})
	if err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			log.Error("cannot claim update", "err", err)
		}
		return
	}
	if claim.Attempts > b.cfg.MaxAttempts {
		log.Error("giving up on an update that was started too often", "attempts", claim.Attempts)
		b.fail(ctx, id, claim, fmt.Sprintf("gave up after %d attempts", claim.Attempts))
		return
	}
	for n := 1; ; n++ {
		err := b.handleSafely(ctx, id, claim)
		switch {
		case err == nil:
			b.finish(ctx, id, memory.StateDone, "")
			return
		case ctx.Err() != nil:
			log.Info("update interrupted by shutdown; it resumes at the next start")
			return
		case errors.Is(err, memory.ErrUnavailable), errors.Is(err, errTelegramUnavailable):
			log.Warn("update interrupted by an outage; will retry", "err", err)
			if !sleep(ctx, backoff(n)) {
				return
			}
		default:
			log.Error("update failed", "err", err)
			b.fail(ctx, id, claim, err.Error())
			return
		}
	}
}

// errPanic marks a recovered panic.
var errPanic = errors.New("panic")

func (b *Bot) handleSafely(ctx context.Context, id int64, claim memory.Claim) (err error) {
	defer func() {
		if r := recover(); r != nil {
			b.log.Error("panic while handling an update", "update_id", id, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return b.handle(ctx, id, claim.Raw)
}

// fail marks the update failed and tells the person, if there is one to
// tell.
func (b *Bot) fail(ctx context.Context, id int64, claim memory.Claim, reason string) {
	b.finish(ctx, id, memory.StateFailed, reason)
	if place, replyTo, ok := b.addressee(claim.Raw); ok {
		if _, err := b.tg.Send(ctx, place, replyTo, apology); err != nil {
			b.log.Warn("could not tell the user about a failure", "update_id", id, "err", err)
		}
	}
}

func (b *Bot) finish(ctx context.Context, id int64, state, reason string) {
	err := b.retry(ctx, "finish update", func() error { return b.db.FinishUpdate(ctx, id, state, reason) })
	if err != nil && ctx.Err() == nil {
		b.log.Error("cannot mark update finished", "update_id", id, "state", state, "err", err)
	}
}
