package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"
	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

// deadletterCommand is /deadletter.
func (b *Bot) deadletterCommand(p lang.Printer) command {
	return command{name: "deadletter", help: p.Sprintf("updates I could not handle: /deadletter, /deadletter retry <update id> or all"), admin: true, private: privateOnly, run: b.deadLetterCmd}
}

const (
	deadUsage = "/deadletter lists the updates I could not handle; /deadletter retry <update id> or /deadletter retry all runs them again."
	// reviveAtOnce is how many updates one retry revives at most.
	reviveAtOnce = 100
)

// deadLetterCmd lists the dead letter, or retries updates in it: admins
// only, and only in a private chat, since it shows what people wrote in
// every chat.
func (b *Bot) deadLetterCmd(ctx context.Context, c call) error {
	verb, rest := cutWord(c.args)
	switch strings.ToLower(verb) {
	case "":
		return b.sendView(ctx, c, viewDead, viewSubject{Admin: true}, c.p.Sprintf("No update is waiting in the dead letter: I handled everything I received."))
	case "retry":
		return b.retryDead(ctx, c, rest)
	}
	return b.reply(ctx, c, c.p.Sprintf(deadUsage))
}

// retryDead revives the update named by arg (an update id, or "all") and
// queues it to run.
func (b *Bot) retryDead(ctx context.Context, c call, arg string) error {
	var ids []int64
	switch id, err := strconv.ParseInt(arg, 10, 64); {
	case strings.EqualFold(arg, "all"):
		letters, _, err := b.db.DeadLetters(ctx, 0, reviveAtOnce)
		if err != nil {
			return err
		}
		for _, d := range letters {
			ids = append(ids, d.UpdateID)
		}
	case err == nil:
		ids = []int64{id}
	default:
		return b.reply(ctx, c, c.p.Sprintf(deadUsage))
	}
	revived, lines, err := b.revive(ctx, c.p, ids)
	if err != nil {
		return err
	}
	text := c.p.Sprintf("Running %d updates again.", revived)
	if len(ids) == 0 {
		text = c.p.Sprintf("No update is waiting in the dead letter.")
	}
	if len(lines) > 0 {
		text += "\n\n" + strings.Join(lines, "\n")
	}
	return b.reply(ctx, c, text)
}

// revive takes each update out of the dead letter and queues it, and says
// which could not be.
func (b *Bot) revive(ctx context.Context, p lang.Printer, ids []int64) (revived int, problems []string, err error) {
	for _, id := range ids {
		u, err := b.db.Revive(ctx, id)
		switch {
		case ryo.IsUnavailable(err, ryo.Database):
			return revived, problems, err
		case errors.Is(err, memory.ErrNotDead):
			problems = append(problems, p.Sprintf("#%d is not in the dead letter.", id))
		case err != nil:
			b.log.ErrorContext(ctx, "a retried update is still refused", "update_id", id, "err", err)
			problems = append(problems, p.Sprintf("#%d is still refused: %s", id, clip(err.Error(), 200)))
		default:
			b.log.InfoContext(ctx, "update taken out of the dead letter; running it again", "update_id", id, "chat_id", u.ChatID)
			b.dispatch(b.queue, u)
			revived++
		}
	}
	return revived, problems, nil
}

// deadLines is a page of the dead letter, newest first.
func (b *Bot) deadLines(ctx context.Context, p lang.Printer, n int) ([]string, int, error) {
	list, total, err := b.db.DeadLetters(ctx, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, d := range list {
		lines[i] = b.deadLine(p, d)
	}
	return lines, total, nil
}

// deadLine is one dead update: its id, what and where it was, when and why
// it died.
func (b *Bot) deadLine(p lang.Printer, d memory.DeadLetter) string {
	why := p.Sprintf("could not be stored")
	if d.Stage == memory.DeadAtProcess {
		why = p.Sprintf("failed after %d attempts", d.Attempts)
	}
	line := fmt.Sprintf("#%d · %s", d.UpdateID, d.Kind)
	if d.ChatID != 0 {
		line += p.Sprintf(" · chat %d", d.ChatID)
	}
	line += fmt.Sprintf(" · %s · %s: %s", b.clock(p, d.DiedAt), why, clip(d.Error, 200))
	if preview := deadPreview(p, d.Raw); preview != "" {
		line += "\n    " + preview
	}
	return line
}

// deadPreview is who wrote what, when a dead update is a message that
// still decodes.
func deadPreview(p lang.Printer, raw []byte) string {
	var upd models.Update
	if json.Unmarshal(raw, &upd) != nil || upd.Message == nil {
		return ""
	}
	m := upd.Message
	text, _ := textOf(m)
	who := ""
	if m.From != nil {
		who = displayName(p, userOf(m.From)) + ": "
	}
	return who + "“" + clip(strings.Join(strings.Fields(text), " "), 80) + "”"
}
