package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
)

// banCommand is /ban.
func (b *Bot) banCommand() command {
	return command{name: "ban", help: "stop someone using me: /ban @name, a user id, or in reply", admin: true, private: privateByName, run: b.ban}
}

func (b *Bot) ban(ctx context.Context, c call) error {
	return b.setAccess(ctx, c, func(ryo.User) (ryo.Role, bool, string) {
		return ryo.RoleBanned, false, "🚫 %s can no longer use me."
	})
}
