package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// allowCommand is /allow.
func (b *Bot) allowCommand(p lang.Printer) command {
	return command{name: "allow", help: p.Sprintf("let someone use me: /allow @name, a user id, or in reply to their message"), admin: true, private: privateByName, run: b.allow}
}

func (b *Bot) allow(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(u ryo.User) (ryo.Role, bool, string) {
		role := u.Role
		if role == ryo.RoleBanned || role == "" {
			role = ryo.RoleUser
		}
		return role, true, c.p.Sprintf("✅ %s may use me now.", displayName(c.p, u))
	})
}
