package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/lang"
)

// quotaCommand is /quota. It is answered only in a private chat: in a
// group, even in reply to someone, it would show everyone that person's
// quota, who gave it, and how much they asked elsewhere.
func (b *Bot) quotaCommand(p lang.Printer) command {
	return command{name: "quota", help: p.Sprintf("how much someone may ask: /quota @name 50/day, 10/hour, 20000 tokens/day; none; default; /quota @name, theirs and how much of it they used; bare, the tiers' quotas"),
		admin: true, private: privateOnly, run: b.quotaCmd}
}

// quotaCmd gives someone a quota of their own (replacing their tier's),
// takes it back ("default"), shows someone's, or lists the tiers' quotas.
func (b *Bot) quotaCmd(ctx context.Context, c call) error {
	args := strings.TrimSpace(c.args)
	who := c
	var limits string
	switch word, rest := cutWord(args); {
	case args != "" && repliedTo(c.msg) != nil && !strings.HasPrefix(word, "@") && (!isID(word) || isLimits(args)): // for whoever wrote the message
		who.args, limits = "", args
	case rest != "":
		who.args, limits = word, rest
	case args == "" && repliedToPerson(c.msg), strings.HasPrefix(word, "@"), namesSomeone(word):
		return b.quotaShow(ctx, c)
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
	if b.isAdmin(u) && b.adminsExempt() {
		note = " " + c.p.Sprintf("They are an admin: admins are not held to quotas (RYO_QUOTA_ADMINS).")
	}
	return b.reply(ctx, c, c.p.Sprintf("⏳ %s may ask %s now (hours and days counted back from each answer).%s", shownName(c.p, u), q, note))
}

// tierQuota writes the quota of tier.
func (b *Bot) tierQuota(p lang.Printer, tier string) string {
	if b.cfg.Quotas == nil {
		return p.Sprintf("none")
	}
	return b.cfg.Quotas.Of(b.tierName(tier)).String()
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

// quotaShow tells an admin the quota of the person c names: the one an
// admin gave them (who, and when) or their tier's, and how much of it
// they used, counted back from now as the quota is.
func (b *Bot) quotaShow(ctx context.Context, c call) error {
	u, problem, err := b.target(ctx, c)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem)
	}
	name := shownName(c.p, u)
	if b.isAdmin(u) && b.adminsExempt() {
		return b.reply(ctx, c, c.p.Sprintf("⏳ %s is an admin: admins are not held to quotas (RYO_QUOTA_ADMINS).", name))
	}
	own, isOwn, err := b.db.QuotaOf(ctx, u.ID)
	if err != nil {
		return err
	}
	var q Quota // as quotaOf finds it, from what was read here once
	switch {
	case isOwn:
		if q, err = ParseQuota(own.Limits); err != nil {
			return err
		}
	case b.cfg.Quotas != nil:
		q = b.cfg.Quotas.Of(b.tierName(u.Tier))
	}
	whose := c.p.Sprintf("their tier's quota (%s)", b.tierName(u.Tier))
	if isOwn {
		setter := c.p.Sprintf("id %d", own.SetBy)
		if by, found, err := b.db.FindUser(ctx, own.SetBy); err != nil {
			return err
		} else if found {
			setter = shownName(c.p, by)
		}
		whose = c.p.Sprintf("their own quota, set by %s on %s", setter, c.p.Date(own.SetAt.In(b.location()), "2 Jan 2006 15:04 MST"))
	}
	if len(q) == 0 {
		return b.reply(ctx, c, c.p.Sprintf("⏳ %s may ask without limit: %s is none.", name, whose))
	}
	now := b.cfg.Clock.Now()
	marks, err := b.db.PersonTurns(ctx, u.ID, now.Add(-day))
	if err != nil {
		return err
	}
	return b.reply(ctx, c, c.p.Sprintf("⏳ %s may ask %s: %s. Counted back from now: %s.", name, q, whose, q.used(c.p, marks, now)))
}

// tierName is the name of the tier whose quota someone of tier is held to.
func (b *Bot) tierName(tier string) string {
	if b.cfg.Tiers != nil {
		tier = b.cfg.Tiers.Of(tier)
	}
	if tier == "" {
		return "default"
	}
	return tier
}

// repliedToPerson reports whether m answers a message a person wrote.
func repliedToPerson(m *models.Message) bool {
	r := repliedTo(m)
	if r == nil {
		return false
	}
	author := senderOf(r)
	return author != nil && !author.IsBot
}

// isLimits reports whether s is what /quota gives someone: limits,
// "none" or "default" — "50 tokens/day" starts with a number, not an id.
func isLimits(s string) bool {
	_, err := ParseQuota(s)
	return err == nil || strings.EqualFold(s, "default")
}

// namesSomeone reports whether word, given alone, is meant to name a
// person: an id, or a number that cannot be one, or a username without
// its @ — but not "none" or "default", which are limits.
func namesSomeone(word string) bool {
	digits := strings.TrimLeft(word, "+-")
	return digits != "" && strings.Trim(digits, "0123456789") == "" || isUsername(word) && !isLimits(word)
}

// isID reports whether word is a Telegram id.
func isID(word string) bool {
	n, err := strconv.ParseInt(word, 10, 64)
	return err == nil && n != 0
}
