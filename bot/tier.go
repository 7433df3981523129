package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
)

// toolsOf are the tools u may use: those of their tier; nil, every tool,
// when no tiers are configured.
func (b *Bot) toolsOf(u ryo.User) []string {
	if b.cfg.Tiers == nil {
		return nil
	}
	return b.cfg.Tiers.Tools(u.Tier)
}

// toolsOfID are the tools of the person with id, as stored now.
func (b *Bot) toolsOfID(ctx context.Context, id int64) ([]string, error) {
	if b.cfg.Tiers == nil {
		return nil, nil
	}
	u, _, err := b.db.FindUser(ctx, id)
	if err != nil {
		return nil, err
	}
	return b.toolsOf(u), nil
}

// mayUseTool reports whether a person with tools (see toolsOf) may use
// the tool named name.
func mayUseTool(tools []string, name string) bool {
	if tools == nil {
		return true
	}
	for _, t := range tools {
		if t == name {
			return true
		}
	}
	return false
}
