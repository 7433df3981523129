package bot

import (
	"context"
	"fmt"

	"github.com/ryo-bot/ryo"
)

// usersCommand is /users.
func (b *Bot) usersCommand() command {
	return command{name: "users", help: "the people I know, with their roles", admin: true, private: privateOnly, run: b.users}
}

func (b *Bot) users(ctx context.Context, c call) error {
	return b.sendView(ctx, c, viewUsers, viewSubject{Admin: true}, "I don't know anyone yet.")
}

// userLines is a page of the people the bot knows, with their access.
func (b *Bot) userLines(ctx context.Context, n int) ([]string, int, error) {
	list, total, err := b.db.Users(ctx, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, u := range list {
		status := string(u.Role)
		switch {
		case b.isAdmin(u):
			status = "admin"
		case u.Role != ryo.RoleBanned && b.cfg.Access == AccessAllowlist && !u.Allowed:
			status = "not let in"
		case u.Role != ryo.RoleBanned && u.Allowed:
			status = "let in"
		}
		lines[i] = fmt.Sprintf("%s · id %d · %s", displayName(u), u.ID, status)
		if b.cfg.Tiers != nil && len(b.cfg.Tiers.Names()) > 1 {
			lines[i] += " · tier " + b.cfg.Tiers.Of(u.Tier)
		}
	}
	return lines, total, nil
}
