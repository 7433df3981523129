package bot

import (
	"context"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
)

// The dead letter holds the updates ryo could not handle: those the inbox
// refused to store, and those whose handling failed for good (an error, or
// a crash every time it was started). Nothing in it is lost: an admin sees
// it with /deadletter and, after a fix, has it run again with
// /deadletter retry, or `ryo deadletter retry` from the command line.

const (
	refusedNotice = "Sorry — I couldn't take that message in. It has been kept, and my admin can have me answer it later."
)

// tellRefused tells the sender of a message the inbox refused that it was
// not taken in, when the message was meant for the bot. It is said once, as
// the update is confirmed to Telegram right after, and without waiting for
// Telegram: the poller goes on meanwhile.
func (b *Bot) tellRefused(ctx context.Context, u memory.InboxUpdate) {
	place, replyTo, ok := b.addressee(u.Raw)
	if !ok {
		return
	}
	b.background.Add(1)
	go func() {
		defer b.background.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		said := b.wordsOfRaw(ctx, u.Raw).Sprintf(refusedNotice)
		if _, err := b.tg.Send(ctx, place, replyTo, render.Part{Plain: said}); err != nil {
			b.log.WarnContext(ctx, "could not tell the sender of a refused update", "update_id", u.ID, "err", err)
		}
	}()
}

// rescanEvery is how often the bot looks for unfinished updates in the
// inbox that it has not queued: those revived from the command line while
// it runs. (One indexed query.)
const rescanEvery = 5 * time.Second

// rescan queues, now and then, the unfinished updates in the inbox. Those
// already queued or running are not queued twice.
func (b *Bot) rescan(ctx context.Context, d *dispatcher) {
	for ryo.Sleep(ctx, b.cfg.Clock, rescanEvery) {
		b.sweepInbox(ctx, d)
	}
}
