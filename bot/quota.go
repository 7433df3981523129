package bot

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

// Limit is one bound of a quota: N answers, or N tokens (asked and
// answered), in any hour or any 24 hours. The windows roll: a turn
// counts until an hour (a day) after it was answered.
type Limit struct {
	N      int64
	Tokens bool          // tokens rather than answers
	Per    time.Duration // time.Hour or day
}

const day = 24 * time.Hour

// Quota is what a person may use: every limit holds. An empty quota has
// no limit.
type Quota []Limit

// ParseQuota reads limits such as "50/day, 10/hour, 20000 tokens/day"
// (also "20k tokens/day"); "none" is no limit.
func ParseQuota(s string) (Quota, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "none" || s == "" {
		return Quota{}, nil
	}
	var q Quota
	for part := range strings.SplitSeq(s, ",") {
		l, err := parseLimit(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(q, func(o Limit) bool { return o.Tokens == l.Tokens && o.Per == l.Per }) {
			return nil, fmt.Errorf("%q: each of answers and tokens an hour and a day is given once", part)
		}
		q = append(q, l)
	}
	return q, nil
}

// parseLimit reads one limit: "50/day", "10/hour", "20000 tokens/day".
func parseLimit(s string) (Limit, error) {
	amount, per, ok := strings.Cut(s, "/")
	var l Limit
	switch strings.TrimSpace(per) {
	case "hour", "h":
		l.Per = time.Hour
	case "day", "d":
		l.Per = day
	default:
		ok = false
	}
	amount = strings.TrimSpace(amount)
	if rest, found := strings.CutSuffix(amount, "tokens"); found {
		l.Tokens, amount = true, strings.TrimSpace(rest)
	}
	mult := int64(1)
	if rest, found := strings.CutSuffix(amount, "k"); found {
		mult, amount = 1000, rest
	}
	n, err := strconv.ParseInt(amount, 10, 64)
	// The bound holds for the whole number, k included: the quota is kept
	// written out in full (String) and read back at every turn.
	if !ok || err != nil || n < 1 || n > 1_000_000_000/mult {
		return Limit{}, fmt.Errorf("%q: write a limit as 50/day, 10/hour or 20000 tokens/day, from 1 to 1000000000", clip(s, 40))
	}
	l.N = n * mult
	return l, nil
}

// String writes q as ParseQuota reads it.
func (q Quota) String() string {
	if len(q) == 0 {
		return "none"
	}
	parts := make([]string, len(q))
	for i, l := range q {
		parts[i] = l.String()
	}
	return strings.Join(parts, ", ")
}

func (l Limit) String() string {
	s := strconv.FormatInt(l.N, 10)
	if l.Tokens {
		s += " tokens"
	}
	if l.Per == time.Hour {
		return s + "/hour"
	}
	return s + "/day"
}

// Quotas are the quotas of tiers (RYO_QUOTA), and whether admins are held
// to them (RYO_QUOTA_ADMINS).
type Quotas struct {
	tiers    map[string]Quota // a tier's own
	everyone Quota            // tiers not named
	Admins   bool             // admins are counted too; exempt when false
}

// ParseQuotas reads RYO_QUOTA — the format of RYO_TIERS, with limits for
// tools: "tier=limit,limit;tier=limit" — where a part without a tier's
// name is everyone's not named: "20/hour,100/day;guest=5/hour". tiers are
// the tiers there are; a name not among them is refused.
func ParseQuotas(spec string, tiers []string) (*Quotas, error) {
	q := &Quotas{tiers: map[string]Quota{}}
	for part := range strings.SplitSeq(spec, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, limits, named := strings.Cut(part, "=")
		if !named {
			name, limits = "", part
		}
		name = strings.ToLower(strings.TrimSpace(name))
		quota, err := ParseQuota(limits)
		switch {
		case err != nil:
			return nil, err
		case named && !slices.Contains(tiers, name):
			return nil, fmt.Errorf("%q is not a tier (tiers: %s)", name, strings.Join(tiers, ", "))
		case !named && q.everyone != nil, named && q.tiers[name] != nil:
			return nil, fmt.Errorf("%q is given twice", cmp.Or(name, "everyone's quota"))
		case named:
			q.tiers[name] = quota
		default:
			q.everyone = quota
		}
	}
	return q, nil
}

// Of is the quota of tier.
func (q *Quotas) Of(tier string) Quota {
	if own, ok := q.tiers[tier]; ok {
		return own
	}
	return q.everyone
}

// Empty reports whether no quota is configured.
func (q *Quotas) Empty() bool {
	for _, own := range q.tiers {
		if len(own) > 0 {
			return false
		}
	}
	return len(q.everyone) == 0
}

// overrun is a limit that is used up, and when it allows a turn again.
type overrun struct {
	limit Limit
	until time.Time
}

// over finds, for marks (a person's turns, the oldest first, none older
// than a day) at now, the limit of q used up that frees last, and when it
// does: the moment enough turns have left its window for one more.
func (q Quota) over(marks []memory.UsageMark, now time.Time) (overrun, bool) {
	var worst overrun
	found := false
	for _, l := range q {
		until, used := l.usedUp(marks, now)
		if used && (!found || until.After(worst.until)) {
			worst, found = overrun{l, until}, true
		}
	}
	return worst, found
}

// usedUp reports whether l is used up at now, and when it frees.
func (l Limit) usedUp(marks []memory.UsageMark, now time.Time) (time.Time, bool) {
	from := now.Add(-l.Per)
	var in []memory.UsageMark
	for _, m := range marks {
		if m.At.After(from) {
			in = append(in, m)
		}
	}
	amount := func(m memory.UsageMark) int64 {
		if l.Tokens {
			return m.Tokens
		}
		return 1
	}
	var used int64
	for _, m := range in {
		used += amount(m)
	}
	if used < l.N {
		return time.Time{}, false
	}
	for _, m := range in { // the oldest leave the window first
		if used -= amount(m); used < l.N {
			return m.At.Add(l.Per), true
		}
	}
	return now, true // unreachable: N ≥ 1
}

// used writes how much of each limit of q marks use at now: "used 2 of
// 3 answers a day, 1 of 10 answers an hour".
func (q Quota) used(p lang.Printer, marks []memory.UsageMark, now time.Time) string {
	parts := make([]string, len(q))
	for i, l := range q {
		var n int64
		for _, m := range marks {
			switch {
			case !m.At.After(now.Add(-l.Per)):
			case l.Tokens:
				n += m.Tokens
			default:
				n++
			}
		}
		switch {
		case l.Tokens && l.Per == time.Hour:
			parts[i] = p.Sprintf("%[2]s of %[3]s tokens an hour", l.N, groupDigits(n), groupDigits(l.N))
		case l.Tokens:
			parts[i] = p.Sprintf("%[2]s of %[3]s tokens a day", l.N, groupDigits(n), groupDigits(l.N))
		case l.Per == time.Hour:
			parts[i] = p.Sprintf("%[2]s of %[3]s answers an hour", l.N, groupDigits(n), groupDigits(l.N))
		default:
			parts[i] = p.Sprintf("%[2]s of %[3]s answers a day", l.N, groupDigits(n), groupDigits(l.N))
		}
	}
	return p.Sprintf("used %s", strings.Join(parts, ", "))
}

// quotaNote is the line /stats adds to a person's own usage: their quota
// and how much of it they used; "" when they have none.
func (b *Bot) quotaNote(ctx context.Context, p lang.Printer, person int64) (string, error) {
	q, err := b.quotaOf(ctx, person, nil)
	if err != nil || len(q) == 0 {
		return "", err
	}
	now := b.cfg.Clock.Now()
	marks, err := b.db.PersonTurns(ctx, person, now.Add(-day))
	if err != nil {
		return "", err
	}
	return "\n\n" + p.Sprintf("⏳ Your quota, counted back from now: %s.", q.used(p, marks, now)), nil
}

// adminsExempt reports whether admins are held to no quota: unless
// RYO_QUOTA_ADMINS counts them.
func (b *Bot) adminsExempt() bool { return b.cfg.Quotas == nil || !b.cfg.Quotas.Admins }

// quotaOf is the quota person is held to, and whether they are held to
// any: the one an admin gave them, else their tier's; none for admins
// unless RYO_QUOTA_ADMINS counts them. standing, when not nil, is what
// decides it as read already; else it is read now.
func (b *Bot) quotaOf(ctx context.Context, person int64, standing *memory.QuotaStanding) (Quota, error) {
	adminsExempt := b.adminsExempt()
	if adminsExempt && slices.Contains(b.cfg.AdminIDs, person) { // an admin by RYO_ADMINS: nothing to read
		return nil, nil
	}
	if standing == nil {
		st, err := b.db.QuotaStandingOf(ctx, person)
		if err != nil {
			return nil, err
		}
		standing = &st
	}
	st := *standing
	var u ryo.User
	if st.Known {
		u = ryo.User{ID: person, Role: st.Role, Tier: st.Tier}
	}
	if b.isAdmin(u) && adminsExempt {
		return nil, nil
	}
	if st.Own {
		return ParseQuota(st.Limits)
	}
	if b.cfg.Quotas == nil {
		return nil, nil
	}
	tier := u.Tier
	if b.cfg.Tiers != nil {
		tier = b.cfg.Tiers.Of(tier)
	}
	return b.cfg.Quotas.Of(cmp.Or(tier, "default")), nil
}

// overQuota is the polite sentence that tells the person of turn t they
// have used up their quota, and when they can ask again; "" when they
// have not — and then t holds one of their answers until it records what
// it used (holds).
func (b *Bot) overQuota(ctx context.Context, log *slog.Logger, t *talk) (string, error) {
	q, err := b.quotaOf(ctx, t.person.ID, t.standing)
	if err != nil || len(q) == 0 {
		return "", err
	}
	b.holds.mu.Lock()
	defer b.holds.mu.Unlock()
	now := b.cfg.Clock.Now()
	marks, err := b.db.PersonTurns(ctx, t.person.ID, now.Add(-day))
	if err != nil {
		return "", err
	}
	for range b.holds.running[t.person.ID] {
		marks = append(marks, memory.UsageMark{At: now})
	}
	o, over := q.over(marks, now)
	if !over {
		t.hold = b.holds.take(t.person.ID)
		return "", nil
	}
	log.InfoContext(ctx, "over quota: not asking the model", "user_id", t.person.ID, "limit", o.limit.String(), "until", o.until)
	return quotaMessage(t.words, o, now, b.location()), nil
}

// quotaHolds are, for each person, their turns that passed the quota
// check and have not yet recorded what they used. Each counts as an
// answer (of no tokens) when the person's next turn is checked, so that
// questions asked at once in several chats cannot all pass with one
// answer left. The check and the record of a held turn take the same
// lock: a turn counts once, never twice or not at all. A token limit
// can still be passed by the turns running at once, whose tokens are
// not known until they end.
type quotaHolds struct {
	mu      sync.Mutex
	running map[int64]int
}

// quotaHold is one turn's hold on one of its person's answers.
type quotaHold struct {
	person int64
	done   bool
}

// take holds one of person's answers; the caller holds mu.
func (q *quotaHolds) take(person int64) *quotaHold {
	if q.running == nil {
		q.running = map[int64]int{}
	}
	q.running[person]++
	return &quotaHold{person: person}
}

// settle runs record, which stores what h's turn used, and lets h go
// once it did; without a hold it only records.
func (q *quotaHolds) settle(h *quotaHold, record func() error) error {
	if h == nil {
		return record()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := record(); err != nil {
		return err
	}
	q.let(h)
	return nil
}

// release lets h go, if it is still held: its turn ends without an
// answer to record.
func (q *quotaHolds) release(h *quotaHold) {
	if h == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.let(h)
}

func (q *quotaHolds) let(h *quotaHold) {
	if h.done {
		return
	}
	h.done = true
	if q.running[h.person]--; q.running[h.person] <= 0 {
		delete(q.running, h.person)
	}
}

// quotaMessage says which limit is used up and when the person can ask
// again, to the minute (rounded up, so that at that minute they can).
func quotaMessage(p lang.Printer, o overrun, now time.Time, loc *time.Location) string {
	at := o.until.Truncate(time.Minute)
	if at.Before(o.until) {
		at = at.Add(time.Minute)
	}
	at = at.In(loc)
	when := p.Sprintf("at %s", at.Format("15:04 MST"))
	if y, m, d := now.In(loc).Date(); at.Day() != d || at.Month() != m || at.Year() != y {
		when = p.Sprintf("tomorrow at %s", at.Format("15:04 MST"))
	}
	n, limit := o.limit.N, groupDigits(o.limit.N) // the count, for the plural; shown grouped
	switch {
	case o.limit.Tokens && o.limit.Per == time.Hour:
		return p.Sprintf("🙏 You've used this hour's %[2]s tokens; you can ask again %[3]s. Your message is kept.", n, limit, when)
	case o.limit.Tokens:
		return p.Sprintf("🙏 You've used today's %[2]s tokens; you can ask again %[3]s. Your message is kept.", n, limit, when)
	case o.limit.Per == time.Hour:
		return p.Sprintf("🙏 You've used this hour's %[2]s answers; you can ask again %[3]s. Your message is kept.", n, limit, when)
	}
	return p.Sprintf("🙏 You've used today's %[2]s answers; you can ask again %[3]s. Your message is kept.", n, limit, when)
}

// groupDigits writes n with thousands separated: 20,000.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// location is the time zone of times shown to people: UTC unless
// configured.
func (b *Bot) location() *time.Location {
	if b.cfg.Location != nil {
		return b.cfg.Location
	}
	return time.UTC
}

// usage is what turn t's answer cost: its model, tokens, the model's
// time (the wall time of the run when the model told none) and the tools
// that ran. It is kept with the answer (memory.TurnAnswer).
func (b *Bot) usage(t talk, model string, out agent.Output, took time.Duration) memory.Usage {
	modelTime := out.Usage.TotalDuration
	if modelTime <= 0 {
		modelTime = took
	}
	return memory.Usage{UpdateID: t.id, ChatID: t.chat.ID, UserID: t.person.ID, Model: model,
		PromptTokens: int64(out.Usage.PromptTokens), ReplyTokens: int64(out.Usage.ReplyTokens), ModelTime: modelTime, Tools: out.Tools}
}
