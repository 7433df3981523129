package bot

import (
	"context"
	"strings"

	"github.com/ryo-bot/ryo/lang"
)

// tierCommand is /tier.
func (b *Bot) tierCommand(p lang.Printer) command {
	return command{name: "tier", help: p.Sprintf("which tools someone may use: /tier @name <tier>, a user id, or in reply; bare, the tiers"), admin: true, private: privateByName, run: b.tierCmd}
}

// tierCmd puts someone in a tier, or lists the tiers and what each unlocks.
func (b *Bot) tierCmd(ctx context.Context, c call) error {
	if b.cfg.Tiers == nil {
		return b.reply(ctx, c, c.p.Sprintf("Everyone may use every tool here: no tiers are configured (RYO_TIERS)."))
	}
	words := strings.Fields(c.args)
	who := c
	var tier string
	switch {
	case len(words) == 1 && repliedTo(c.msg) != nil:
		who.args, tier = "", words[0]
	case len(words) == 2:
		who.args, tier = words[0], words[1]
	default:
		return b.reply(ctx, c, b.tierList(c.p))
	}
	tier = strings.ToLower(tier)
	if !b.cfg.Tiers.Has(tier) {
		return b.reply(ctx, c, c.p.Sprintf("There is no tier “%s”. The tiers are: %s.", clip(tier, 32), strings.Join(b.cfg.Tiers.Names(), ", ")))
	}
	u, problem, err := b.target(ctx, who)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem)
	}
	stored := tier
	if tier == b.cfg.Tiers.Default() {
		stored = "" // follows the default tier, should it change
	}
	if _, err := b.db.SetTier(ctx, u.ID, stored, c.user.ID); err != nil {
		return err
	}
	b.log.InfoContext(ctx, "tier changed", "by", c.user.ID, "user_id", u.ID, "tier", tier)
	return b.reply(ctx, c, c.p.Sprintf("🎚 %s is in the %s tier now: %s.", displayName(c.p, u), tier, toolList(c.p, b.cfg.Tiers.Tools(tier))))
}

// tierList names the tiers and the tools each unlocks.
func (b *Bot) tierList(p lang.Printer) string {
	lines := []string{p.Sprintf("🎚 Tiers — which tools people may use:")}
	for _, name := range b.cfg.Tiers.Names() {
		line := "• " + name
		if name == b.cfg.Tiers.Default() {
			line += p.Sprintf(" (everyone not given another)")
		}
		lines = append(lines, line+" — "+toolList(p, b.cfg.Tiers.Tools(name)))
	}
	return strings.Join(append(lines, "", p.Sprintf("Put someone in one with /tier @name <tier>, their id, or in reply to their message; /users shows each person's.")), "\n")
}

// toolList names tools on one line.
func toolList(p lang.Printer, tools []string) string {
	if len(tools) == 0 {
		return p.Sprintf("no tools")
	}
	return strings.Join(tools, ", ")
}
