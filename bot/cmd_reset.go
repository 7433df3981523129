package bot

import (
	"context"

	"github.com/ryo-bot/ryo/lang"
)

// resetCommand is /reset.
func (b *Bot) resetCommand(p lang.Printer) command {
	return command{name: "reset", help: p.Sprintf("make me forget this conversation (history stays stored)"), run: b.reset}
}

func (b *Bot) reset(ctx context.Context, c call) error {
	if err := b.db.ResetContext(ctx, c.chat, c.place); err != nil {
		return err
	}
	return b.reply(ctx, c, c.p.Sprintf("🧹 Done — I start fresh from here: what we said so far no longer shapes my answers. It stays stored, so I can still search it when you ask; /forgetme deletes what is yours."))
}
