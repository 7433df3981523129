package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// ask calls the model for one round and returns its envelope, with the raw
// answer. An invalid answer is repaired by telling the model exactly what was
// wrong, at most MaxRepairs times.
func (a *Agent) ask(ctx context.Context, msgs []ryo.ModelMessage, onDelta func(string), out *Output) (Envelope, string, error) {
	for repair := 0; ; repair++ {
		reply, err := a.cfg.Model.Chat(ctx, ryo.ModelRequest{Messages: msgs, Format: a.format, OnDelta: onDelta})
		addUsage(&out.Usage, reply.Usage)
		if err != nil {
			return Envelope{}, "", err
		}
		env, perr := ParseEnvelope(reply.Content, a.answers)
		if perr == nil {
			return env, reply.Content, nil
		}
		if repair == a.cfg.MaxRepairs {
			return Envelope{}, "", fmt.Errorf("%w: last problem: %v", ErrUnusable, perr)
		}
		out.Repairs++
		msgs = append(msgs[:len(msgs):len(msgs)],
			ryo.ModelMessage{Role: ryo.ModelAssistant, Content: reply.Content},
			ryo.ModelMessage{Role: ryo.ModelSystem, Content: repairNote(perr)})
	}
}

func repairNote(err error) string {
	return "Your last answer was not a valid envelope: " + err.Error() +
		`. Answer again with only one JSON object of the form {"reply": "...", "command": null, "tags": [], "followUpQuestion": null}, with a command only for a listed tool.`
}

// command runs the envelope's command through the tool bus, once per
// idempotency key even across restarts, stores the result and returns the
// tool-result message for the model, and whether the tool succeeded.
func (a *Agent) command(ctx context.Context, in Input, round int, c *Command) (string, bool, error) {
	key := toolbus.Key(in.UpdateID, round, c.Intent, c.Slots)
	if prior, found, err := a.cfg.Store.ToolResult(ctx, key); err != nil || found {
		return prior.Text, found && strings.Contains(prior.Text, `"status":"ok"`), err
	}
	res := a.cfg.Tools.Run(ctx, toolbus.Call{ID: fmt.Sprintf("u%d-r%d", in.UpdateID, round), Key: key, Tool: c.Intent, Args: c.Slots})
	if res.Status == toolbus.StatusCancelled && ctx.Err() != nil {
		return "", false, ctx.Err()
	}
	stored, err := a.cfg.Store.SaveToolResult(ctx, ryo.Message{Place: in.Place, Kind: ryo.KindToolResult,
		Text: res.Text(), UpdateID: in.UpdateID, Metadata: res.Metadata()}, key)
	if err != nil {
		return "", false, err
	}
	return stored.Text, res.Status == toolbus.StatusOK, nil
}

func addUsage(sum *ryo.Usage, u ryo.Usage) {
	sum.PromptTokens += u.PromptTokens
	sum.ReplyTokens += u.ReplyTokens
	sum.LoadDuration += u.LoadDuration
	sum.PromptDuration += u.PromptDuration
	sum.ReplyDuration += u.ReplyDuration
	sum.TotalDuration += u.TotalDuration
}

// Tag limits.
const (
	maxTags   = 8
	maxTagLen = 64
)

// addTags adds normalised tags: lower case, words joined by "-", no
// duplicates, at most maxTags.
func addTags(tags []string, more ...string) []string {
	for _, t := range more {
		t = strings.Join(strings.Fields(strings.ToLower(t)), "-")
		if r := []rune(t); len(r) > maxTagLen {
			t = string(r[:maxTagLen])
		}
		if t == "" || len(tags) >= maxTags || hasTag(tags, t) {
			continue
		}
		tags = append(tags, t)
	}
	return tags
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}

// claims matches replies that say an action was done.
var claims = regexp.MustCompile(`(?i)\b(saved|deleted|removed|sent|scheduled|created|stored|remembered|booked|added|cancelled|updated)\b`)

// claimedAction returns the done-deed a reply claims, or "".
func claimedAction(reply string) string {
	return strings.ToLower(claims.FindString(reply))
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
func trimmed(s string) string     { return strings.TrimSpace(s) }

func join(a, b string) string {
	if trimmed(a) == "" {
		return b
	}
	return trimmed(a) + "\n\n" + b
}
