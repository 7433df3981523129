package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// demoteCommand is /demote.
func (b *Bot) demoteCommand(p lang.Printer) command {
	return command{name: "demote", help: p.Sprintf("make an admin a normal user again: /demote @name, a user id, or in reply"), admin: true, private: privateByName, run: b.demote}
}

func (b *Bot) demote(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(u ryo.User) (ryo.Role, bool, string) {
		return ryo.RoleUser, u.Allowed, c.p.Sprintf("%s is no longer an admin.", displayName(c.p, u))
	})
}
