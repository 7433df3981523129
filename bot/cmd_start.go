package bot

import (
	"context"
	"fmt"

	"github.com/ryo-bot/ryo"
)

// startCommand is /start.
func (b *Bot) startCommand() command {
	return command{name: "start", help: "introduce yourself and see what I can do", run: b.start}
}

func (b *Bot) start(ctx context.Context, c call) error {
	user, err := b.db.SaveUser(ctx, c.user, true)
	if err != nil {
		return err
	}
	how := "Just write to me."
	if c.chat.Type.IsGroup() {
		how = fmt.Sprintf("In this group, mention me (@%s) or reply to one of my messages.", b.me.Username)
	}
	return b.reply(ctx, c, fmt.Sprintf("Hi %s! I'm %s, an assistant running on a local language model. %s\n\n/help lists the commands you can use.",
		firstName(user), b.me.FirstName, how))
}

func firstName(u ryo.User) string {
	if u.FirstName != "" {
		return u.FirstName
	}
	return u.Name()
}
