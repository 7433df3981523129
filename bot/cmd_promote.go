package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
)

// promoteCommand is /promote.
func (b *Bot) promoteCommand() command {
	return command{name: "promote", help: "make someone an admin: /promote @name, a user id, or in reply", admin: true, private: privateByName, run: b.promote}
}

func (b *Bot) promote(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(ryo.User) (ryo.Role, bool, string) {
		return ryo.RoleAdmin, true, "⭐ %s is an admin now."
	})
}
