package bot

import "context"

// resetCommand is /reset.
func (b *Bot) resetCommand() command {
	return command{name: "reset", help: "make me forget this conversation (history stays stored)", run: b.reset}
}

func (b *Bot) reset(ctx context.Context, c call) error {
	if err := b.db.ResetContext(ctx, c.chat, c.place); err != nil {
		return err
	}
	return b.reply(ctx, c, "🧹 Done — I've forgotten our conversation so far. The history stays stored; I just start fresh from here.")
}
