package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// promoteCommand is /promote.
func (b *Bot) promoteCommand(p lang.Printer) command {
	return command{name: "promote", help: p.Sprintf("make someone an admin: /promote @name, a user id, or in reply"), admin: true, private: privateByName, run: b.promote}
}

func (b *Bot) promote(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(u ryo.User) (ryo.Role, bool, string) {
		return ryo.RoleAdmin, true, c.p.Sprintf("⭐ %s is an admin now.", displayName(c.p, u))
	})
}
