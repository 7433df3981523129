package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// usersCommand is /users.
func (b *Bot) usersCommand(p lang.Printer) command {
	return command{name: "users", help: p.Sprintf("the people I know, with their roles"), admin: true, private: privateOnly, run: b.users}
}

func (b *Bot) users(ctx context.Context, c call) error {
	return b.sendView(ctx, c, viewUsers, viewSubject{Admin: true}, c.p.Sprintf("I don't know anyone yet."))
}

// userLines is a page of the people the bot knows, with their access.
func (b *Bot) userLines(ctx context.Context, p lang.Printer, n int) ([]string, int, error) {
	list, total, err := b.db.Users(ctx, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, u := range list {
		status := string(u.Role)
		switch {
		case b.isAdmin(u):
			status = p.Sprintf("admin")
		case u.Role == ryo.RoleBanned:
			status = p.Sprintf("banned")
		case b.cfg.Access == AccessAllowlist && !u.Allowed:
			status = p.Sprintf("not let in")
		case u.Allowed:
			status = p.Sprintf("let in")
		case u.Role == ryo.RoleUser:
			status = p.Sprintf("user")
		}
		lines[i] = p.Sprintf("%s · id %d · %s", displayName(p, u), u.ID, status)
		if b.cfg.Tiers != nil && len(b.cfg.Tiers.Names()) > 1 {
			lines[i] += p.Sprintf(" · tier %s", b.cfg.Tiers.Of(u.Tier))
		}
	}
	return lines, total, nil
}
