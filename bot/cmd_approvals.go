package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
)

// approvalsCommand is /approvals.
func (b *Bot) approvalsCommand(p lang.Printer) command {
	return command{name: "approvals", help: p.Sprintf("recent confirmations and who decided them"), admin: true, private: privateOnly, run: b.approvals}
}

// approvals shows admins the newest entries of the actions' audit log, of
// every chat. It is private: it names who pressed buttons they may not,
// which nobody else saw.
func (b *Bot) approvals(ctx context.Context, c call) error {
	const everyChat = 0
	events, err := b.db.ActionEvents(ctx, approvalsShown, everyChat)
	if err != nil {
		return err
	}
	refused, err := b.db.RefusedPresses(ctx, refusedShown, everyChat)
	if err != nil {
		return err
	}
	if len(events) == 0 {
		return b.reply(ctx, c, c.p.Sprintf("No actions have asked for confirmation yet."))
	}
	var below []string
	if len(refused) > 0 {
		below = append(below, "", c.p.Sprintf("🚫 Pressed by people who may not decide, latest first:"))
		for _, e := range refused {
			below = append(below, b.auditLine(c.p, e))
		}
	}
	// The reply is one message: the decisions that do not fit are the
	// oldest, never the presses below them.
	lines := []string{c.p.Sprintf("🗂 Recent confirmations, newest first:")}
	room := render.MaxUnits - render.Units(strings.Join(append(lines, below...), "\n"))
	for _, e := range events {
		line := b.auditLine(c.p, e)
		if room -= render.Units(line) + 1; room < 0 {
			break
		}
		lines = append(lines, line)
	}
	return b.reply(ctx, c, strings.Join(append(lines, below...), "\n"))
}

// refusedShown is how many people's refused presses /approvals lists, each
// on one line however often they pressed: the decisions above come first.
const refusedShown = 5

// maxAuditName is how much of a name an audit line shows.
const maxAuditName = 40

// auditSymbol marks a kind of audit entry.
func auditSymbol(event ryo.AuditEvent) string {
	switch event {
	case ryo.EventRequested:
		return "📝"
	case ryo.EventConfirmed:
		return "✅"
	case ryo.EventCancelled:
		return "❌"
	case ryo.EventExpired:
		return "⌛"
	case ryo.EventStarted:
		return "▶️"
	case ryo.EventExecuted:
		return "⚙️"
	case ryo.EventInterrupted:
		return "⚠️"
	}
	return "🚫"
}

// auditLine is one audit entry on one line: when, what, which action, by
// whom, in which chat.
func (b *Bot) auditLine(p lang.Printer, e memory.ActionEvent) string {
	a := e.Action
	line := p.Date(e.At.In(b.cfg.Location), "2 Jan 15:04") + " " + auditSymbol(e.Event) + " " + string(e.Event)
	if e.Event == ryo.EventExecuted && e.Detail != "" {
		line += " (" + e.Detail + ")"
	}
	line += " · " + a.Tool + " " + clip(compactJSON(a.Args), 60)
	actor, requester := clip(orSomeone(p, e.Actor), maxAuditName), clip(orSomeone(p, a.RequesterName), maxAuditName)
	switch {
	case e.Event == ryo.EventRefused && e.Times > 1:
		line += p.Sprintf(" · pressed %d times by %s, who may not decide", e.Times, actor)
	case e.Event == ryo.EventRefused:
		line += p.Sprintf(" · pressed by %s, who may not decide", actor)
	case e.ActorID != 0 && e.ActorID != a.Requester:
		line += p.Sprintf(" · by %s, asked by %s", actor, requester)
	case e.ActorID != 0:
		line += p.Sprintf(" · by %s", actor)
	}
	return line + p.Sprintf(" · chat %d", a.Place.ChatID)
}

// compactJSON is a JSON value on one line.
func compactJSON(raw []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil {
		return string(raw)
	}
	return out.String()
}
