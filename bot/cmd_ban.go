package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// banCommand is /ban.
func (b *Bot) banCommand(p lang.Printer) command {
	return command{name: "ban", help: p.Sprintf("stop someone using me: /ban @name, a user id, or in reply"), admin: true, private: privateByName, run: b.ban}
}

func (b *Bot) ban(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(u ryo.User) (ryo.Role, bool, string) {
		return ryo.RoleBanned, false, c.p.Sprintf("🚫 %s can no longer use me.", displayName(c.p, u))
	})
}
