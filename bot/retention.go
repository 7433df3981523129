package bot

import (
	"context"
	"time"

	"github.com/ryo-bot/ryo"
)

// retainEvery is how often what is past its retention is swept.
const retainEvery = time.Hour

// retain deletes what is past its retention (memory's Sweep, with the
// RYO_RETAIN_* settings) at start and every retainEvery until ctx ends.
func (b *Bot) retain(ctx context.Context) {
	for {
		b.retainOnce(ctx)
		if !ryo.Sleep(ctx, b.cfg.Clock, retainEvery) {
			return
		}
	}
}

// retainOnce sweeps once and logs how much of each kind it deleted, never
// what: the counts alone.
func (b *Bot) retainOnce(ctx context.Context) {
	s, err := b.db.Sweep(ctx, b.cfg.Retention)
	if s.Total() > 0 {
		b.log.InfoContext(ctx, "deleted what is past its retention", "updates", s.Updates, "dead_letters", s.DeadLetters,
			"views", s.Views, "actions", s.Actions, "memories", s.Memories, "context_messages", s.Context, "files", s.Files)
	}
	if err != nil && ctx.Err() == nil {
		b.log.WarnContext(ctx, "could not delete everything past its retention; the next sweep goes on", "next_in", retainEvery, "err", err)
	}
}
