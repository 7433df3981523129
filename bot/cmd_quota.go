package bot

import (
	"context"
	"strings"

	"github.com/ryo-bot/ryo/lang"
)

// quotaCommand is /quota.
func (b *Bot) quotaCommand(p lang.Printer) command {
	return command{name: "quota", help: p.Sprintf("how much someone may ask: /quota @name 50/day, 10/hour, 20000 tokens/day; none; default; bare, the tiers' quotas"),
		admin: true, private: privateByName, run: b.quotaCmd}
}

// quotaCmd gives someone a quota of their own (replacing their tier's),
// takes it back ("default"), or lists the tiers' quotas.
func (b *Bot) quotaCmd(ctx context.Context, c call) error {
	args := strings.TrimSpace(c.args)
	who := c
	var limits string
	switch word, rest, _ := strings.Cut(args, " "); {
	case args != "" && repliedTo(c.msg) != nil && !strings.HasPrefix(args, "@"):
		who.args, limits = "", args
	case strings.TrimSpace(rest) != "":
		who.args, limits = word, strings.TrimSpace(rest)
	default:
		return b.reply(ctx, c, b.quotaList(c.p))
	}
	u, problem, err := b.target(ctx, who)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem)
	}
	if strings.EqualFold(limits, "default") {
		if err := b.db.SetPersonQuota(ctx, u.ID, "", c.user.ID); err != nil {
			return err
		}
		b.log.InfoContext(ctx, "quota removed", "by", c.user.ID, "user_id", u.ID)
		return b.reply(ctx, c, c.p.Sprintf("⏳ %s has their tier's quota again: %s.", shownName(c.p, u), b.tierQuota(c.p, u.Tier)))
	}
	q, err := ParseQuota(limits)
	if err != nil {
		return b.reply(ctx, c, c.p.Sprintf("⚠️ %s. Or none (no limit), or default (their tier's).", err.Error()))
	}
	if err := b.db.SetPersonQuota(ctx, u.ID, q.String(), c.user.ID); err != nil {
		return err
	}
	b.log.InfoContext(ctx, "quota set", "by", c.user.ID, "user_id", u.ID, "quota", q.String())
	note := ""
	if b.isAdmin(u) && (b.cfg.Quotas == nil || !b.cfg.Quotas.Admins) {
		note = " " + c.p.Sprintf("They are an admin: admins are not held to quotas (RYO_QUOTA_ADMINS).")
	}
	return b.reply(ctx, c, c.p.Sprintf("⏳ %s may ask %s now (hours and days counted back from each answer).%s", shownName(c.p, u), q, note))
}

// tierQuota writes the quota of tier.
func (b *Bot) tierQuota(p lang.Printer, tier string) string {
	if b.cfg.Quotas == nil {
		return p.Sprintf("none")
	}
	if b.cfg.Tiers != nil {
		tier = b.cfg.Tiers.Of(tier)
	}
	if tier == "" {
		tier = "default"
	}
	return b.cfg.Quotas.Of(tier).String()
}

// quotaList names each tier's quota.
func (b *Bot) quotaList(p lang.Printer) string {
	lines := []string{p.Sprintf("⏳ Quotas — how much people may ask (RYO_QUOTA):")}
	names := []string{"default"}
	if b.cfg.Tiers != nil {
		names = b.cfg.Tiers.Names()
	}
	for _, name := range names {
		lines = append(lines, "• "+name+" — "+b.tierQuota(p, name))
	}
	admins := p.Sprintf("Admins are not held to them.")
	if b.cfg.Quotas != nil && b.cfg.Quotas.Admins {
		admins = p.Sprintf("Admins are held to them too.")
	}
	return strings.Join(append(lines, admins, "",
		p.Sprintf("Give someone their own with /quota @name 50/day, 10/hour, 20000 tokens/day (or none), their id, or in reply; /quota @name default gives them their tier's again.")), "\n")
}
