package bot

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/tools"
)

// statsCommand is /stats.
func (b *Bot) statsCommand(p lang.Printer) command {
	return command{name: "stats", help: p.Sprintf("usage: a group's for its admins (with a chart), your own for you"), run: b.stats}
}

// stats shows usage: in a group, to an admin, the group's, with a chart
// of the last 30 days; to anyone else their own there. In a private chat
// a person's own everywhere, and to an admin who asks "/stats all", every
// chat's, with the chart.
func (b *Bot) stats(ctx context.Context, c call) error {
	admin := b.isAdmin(c.user)
	all := strings.EqualFold(strings.TrimSpace(c.args), "all")
	var scope memory.UsageScope
	var title string
	switch {
	case c.chat.Type != ryo.ChatPrivate && admin:
		scope, title = memory.UsageScope{ChatID: c.chat.ID}, c.p.Sprintf("📊 Usage in this group")
	case c.chat.Type != ryo.ChatPrivate:
		scope, title = memory.UsageScope{ChatID: c.chat.ID, UserID: c.user.ID}, c.p.Sprintf("📊 Your usage in this group")
	case admin && all:
		scope, title = memory.UsageScope{}, c.p.Sprintf("📊 Usage in every chat")
	default:
		scope, title = memory.UsageScope{UserID: c.user.ID}, c.p.Sprintf("📊 Your usage")
	}
	r, err := b.db.UsageReport(ctx, scope)
	if err != nil {
		return err
	}
	group := scope.UserID == 0
	text := statsText(c.p, title, r, group)
	if !group {
		note, err := b.quotaNote(ctx, c.p, c.user.ID) // quota.go
		if err != nil {
			return err
		}
		text += note
	}
	if c.chat.Type == ryo.ChatPrivate && admin && !all {
		text += "\n\n" + c.p.Sprintf("As an admin, /stats all shows every chat's; /stats in a group shows that group's.")
	}
	if err := b.reply(ctx, c, text); err != nil || !group || r.Month.Turns == 0 {
		return err
	}
	return b.sendStatsChart(ctx, c, r)
}

// sendStatsChart sends the chart of r's last 30 days as a photo, once per
// update: a run again after it was sent does not send it twice.
func (b *Bot) sendStatsChart(ctx context.Context, c call, r memory.UsageReport) error {
	prior, err := b.db.Turn(ctx, c.update)
	if err != nil || len(prior.Parts) > 0 {
		return err
	}
	png, err := tools.DrawChart(statsChart(c.p, r, b.cfg.Clock.Now()))
	if err != nil {
		return fmt.Errorf("draw the usage chart: %w", err)
	}
	var id int
	err = c.w.idle(func() (err error) {
		id, err = b.tg.SendPhoto(ctx, c.place, c.msg.ID, "usage.png", png, c.p.Sprintf("Answers per day in the last 30 days, by model (UTC)"))
		return err
	})
	if err != nil {
		return err
	}
	return b.record(ctx, "remember the usage chart", func(ctx context.Context) error {
		return b.db.SaveTurnParts(ctx, c.update, []int{id})
	})
}

// statsSeries is how many models the chart shows apart; the rest are
// "other models".
const statsSeries = 3

// statsChart is create_chart's arguments for r: a line of answers per day
// for each of the busiest models, the 30 days up to now's.
func statsChart(p lang.Printer, r memory.UsageReport, now time.Time) json.RawMessage {
	models := make([]string, 0, statsSeries)
	for i, m := range r.Models {
		if i == statsSeries-1 && len(r.Models) > statsSeries {
			models = append(models, p.Sprintf("other models"))
			break
		}
		models = append(models, modelName(p, m.Model, 40))
	}
	series := func(model string) int {
		for i, m := range r.Models {
			if m.Model == model {
				return min(i, len(models)-1)
			}
		}
		return len(models) - 1
	}
	today := now.UTC().Truncate(day)
	type point struct {
		Label  string   `json:"label"`
		Value  float64  `json:"value"`
		Value2 *float64 `json:"value2,omitempty"`
		Value3 *float64 `json:"value3,omitempty"`
	}
	values := make([][statsSeries]float64, 30)
	for _, d := range r.Days {
		if i := 29 - int(today.Sub(d.Day)/day); i >= 0 && i < 30 {
			values[i][series(d.Model)] += float64(d.Turns)
		}
	}
	points := make([]point, 30)
	for i := range points {
		v := values[i]
		points[i] = point{Label: p.Date(today.AddDate(0, 0, i-29), "Jan 2"), Value: v[0]}
		if len(models) > 1 {
			points[i].Value2 = &v[1]
		}
		if len(models) > 2 {
			points[i].Value3 = &v[2]
		}
	}
	raw, _ := json.Marshal(map[string]any{"kind": "line", "title": p.Sprintf("Answers per day, last 30 days"),
		"y_label": p.Sprintf("answers"), "series": models, "points": points})
	return raw
}

// statsText writes r under title: totals for today, 7 and 30 days, by
// model, the last 7 days one by one, and — for a group's or everyone's
// usage (group) — the busiest people and tools.
func statsText(p lang.Printer, title string, r memory.UsageReport, group bool) string {
	if r.Month.Turns == 0 {
		return title + "\n" + p.Sprintf("No answers in the last 30 days.")
	}
	lines := []string{p.Sprintf("%s (days in UTC)", title),
		p.Sprintf("Today: %s", totals(p, r.Today, group)),
		p.Sprintf("7 days: %s", totals(p, r.Week, group)),
		p.Sprintf("30 days: %s", totals(p, r.Month, group))}
	lines = append(lines, "", p.Sprintf("By model, 30 days:"))
	for _, m := range r.Models {
		lines = append(lines, fmt.Sprintf("• %s — %s", modelName(p, m.Model, 60), totals(p, m.UsageTotals, false)))
	}
	lines = append(lines, "", p.Sprintf("By day:"))
	for _, d := range lastDays(p, r.Days, 7) {
		lines = append(lines, d)
	}
	if group && len(r.People) > 0 {
		lines = append(lines, "", p.Sprintf("Busiest people, 30 days:"))
		for i, u := range r.People {
			lines = append(lines, p.Sprintf("%d. %s — %s, %s", i+1, shownName(p, u.Person), answers(p, u.Turns), tokensOf(p, u.Tokens)))
		}
	}
	if len(r.Tools) > 0 {
		lines = append(lines, "", p.Sprintf("Busiest tools, 30 days:"))
		for _, t := range r.Tools {
			lines = append(lines, fmt.Sprintf("• %s — %s", clip(cleanLine(t.Tool), 60), p.Sprintf("%[2]s calls", t.Calls, groupDigits(t.Calls))))
		}
	}
	return strings.Join(lines, "\n")
}

// totals writes t on one line; people counted only when group.
func totals(p lang.Printer, t memory.UsageTotals, group bool) string {
	parts := []string{answers(p, t.Turns)}
	if group {
		parts = append(parts, p.Sprintf("%[2]s people", t.People, groupDigits(t.People)))
	}
	parts = append(parts, p.Sprintf("%[2]s tokens in", t.PromptTokens, groupDigits(t.PromptTokens)), p.Sprintf("%s out", groupDigits(t.ReplyTokens)),
		p.Sprintf("model %s", shortDuration(p, t.ModelTime)), p.Sprintf("%[2]s tool calls", t.ToolCalls, groupDigits(t.ToolCalls)))
	return strings.Join(parts, " · ")
}

// lastDays writes the n newest days of days, the newest first, each
// day's models together.
func lastDays(p lang.Printer, days []memory.UsageDay, n int) []string {
	var out []string
	for i := len(days) - 1; i >= 0 && len(out) < n; {
		d := days[i].Day
		var turns, tokens int64
		for ; i >= 0 && days[i].Day.Equal(d); i-- {
			turns, tokens = turns+days[i].Turns, tokens+days[i].Tokens
		}
		out = append(out, fmt.Sprintf("• %s — %s, %s", p.Date(d, "Mon Jan 2"), answers(p, turns), tokensOf(p, tokens)))
	}
	return out
}

// answers is n answers, its digits grouped: "1 answer", "1,234 answers".
// (The count comes first for the plural form, and is shown grouped.)
func answers(p lang.Printer, n int64) string { return p.Sprintf("%[2]s answers", n, groupDigits(n)) }

// tokensOf is n tokens, as answers.
func tokensOf(p lang.Printer, n int64) string { return p.Sprintf("%[2]s tokens", n, groupDigits(n)) }

// shortDuration writes d to the second, or the tenth of one under a
// minute: "4.5s", "3m 20s", "2h 05m".
func shortDuration(p lang.Printer, d time.Duration) string {
	switch {
	case d < time.Minute:
		return p.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return p.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return p.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// shownName is how a person is named in a list: as Telegram shows them,
// on one line, their name's direction controls taken out and the name
// isolated, so that it cannot turn the rest of the line around.
func shownName(p lang.Printer, u ryo.User) string {
	return "\u2068" + clip(cleanLine(displayName(p, u)), 48) + "\u2069"
}

// modelName is a model's name on one line, at most n characters.
func modelName(p lang.Printer, model string, n int) string {
	return clip(cmp.Or(strings.TrimSpace(cleanLine(model)), p.Sprintf("unknown model")), n)
}

// cleanLine is s on one line, without directional embeddings, overrides
// and isolates.
func cleanLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case '\u202a' <= r && r <= '\u202e', '\u2066' <= r && r <= '\u2069':
			return -1
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		}
		return r
	}, s)
}
