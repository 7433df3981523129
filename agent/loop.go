package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// ask calls the model (base's, when set, else the client's own, with
// base's temperature) for one round and returns its envelope, with the raw
// answer. An invalid answer is repaired by telling the model exactly what was
// wrong, at most MaxRepairs times; one the model server cut off at its length
// limit is not (cutOff). format is the envelope schema the model is held
// to, repairs included; force, when set, is the tool the format makes its
// command call — checked here too, as some model servers ignore the format
// without a word. Each call is reported to observe, and so is its reply as
// it grows.
func (a *Agent) ask(ctx context.Context, base ryo.ModelRequest, msgs []ryo.ModelMessage, format []byte, force string, observe func(ryo.Step), out *Output) (Envelope, string, error) {
	for repair := 0; ; repair++ {
		out.Calls++
		observe(ryo.Step{Kind: ryo.StepThinking, Call: out.Calls})
		var partial partialReply
		onDelta := func(delta string) {
			if partial.feed(delta) {
				observe(ryo.Step{Kind: ryo.StepWriting, Reply: partial.text()})
			}
		}
		began := a.cfg.Clock.Now()
		callCtx, span := a.startModelSpan(ctx, base.Model, repair) // span.go
		reply, err := a.cfg.Model.Chat(callCtx, ryo.ModelRequest{Model: base.Model, Temperature: base.Temperature, Messages: msgs, Format: format, OnDelta: onDelta})
		endModelSpan(span, reply, err)
		addUsage(&out.Usage, reply.Usage)
		observe(answered(base.Model, reply, repair > 0, a.cfg.Clock.Now().Sub(began), err))
		if err != nil {
			return Envelope{}, "", err
		}
		env, perr := ParseEnvelope(reply.Content, a.answers)
		if perr == nil && env.Command == nil && trimmed(env.Reply) == "" {
			perr = errors.New(`"reply" is empty: write the answer for the person there`)
		}
		if perr == nil && force != "" && (env.Command == nil || env.Command.Intent != force) {
			perr = fmt.Errorf(`the person chose the tool %q for this message: "command" must call it, with its arguments`, force)
		}
		if perr == nil {
			return env, reply.Content, nil
		}
		if reply.CutOff {
			return cutOff(reply.Content, out)
		}
		if repair == a.cfg.MaxRepairs {
			return Envelope{}, "", fmt.Errorf("%w: last problem: %v", ErrUnusable, perr)
		}
		out.Repairs++
		msgs = append(msgs[:len(msgs):len(msgs)],
			ryo.ModelMessage{Role: ryo.ModelAssistant, Content: reply.Content},
			ryo.ModelMessage{Role: ryo.ModelUser, Content: repairNote(perr)})
	}
}

// answered is the step that reports a model call's end.
func answered(model string, reply ryo.ModelReply, repair bool, took time.Duration, err error) ryo.Step {
	s := ryo.Step{Kind: ryo.StepAnswered, Model: model, Usage: reply.Usage, Repair: repair, Took: took}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// cutOff makes the envelope of an answer that the model server stopped at
// its length limit before the envelope was complete. It is not repaired:
// the model would begin again, most likely reach the same limit, and take
// as long again. The reply as far as it got is the answer (finish adds a
// line saying it was cut off), and a command it was writing does not run.
// An answer cut before its reply began has nothing to show.
func cutOff(content string, out *Output) (Envelope, string, error) {
	var p partialReply
	p.feed(content)
	if trimmed(p.text()) == "" {
		return Envelope{}, "", ErrCutOff
	}
	out.CutOff = true
	return Envelope{Reply: trimmed(p.text()) + "…"}, content, nil
}

func repairNote(err error) string {
	return "(Not from the person: your last answer was not a valid envelope: " + err.Error() +
		`. Answer again with only the JSON object {"reply": ..., "command": ..., "tags": [...], "followUpQuestion": ...}, exactly as described.)`
}

// result is what a command came to, as the model is shown it.
type result struct {
	text    string
	ok      bool     // the tool did it
	changes bool     // the tool changes things (not read-only)
	tags    []string // the tool's tags for the turn
}

// command runs a call through the tool bus, once per idempotency key even
// across restarts, stores the result and returns it. The run is reported
// to observe.
func (a *Agent) command(ctx context.Context, in Input, call toolbus.Call, observe func(ryo.Step)) (result, error) {
	spec, known := a.cfg.Tools.Lookup(call.Tool)
	r := result{changes: known && spec.Effect != toolbus.ReadOnly, tags: spec.Tags}
	doing, subject := spec.DoingOf(call.Args)
	observe(ryo.Step{Kind: ryo.StepTool, Tool: call.Tool, Args: call.Args, Doing: doing, Subject: subject})
	if prior, found, err := a.cfg.Store.ToolResult(ctx, call.Key); err != nil || found {
		r.text, r.ok = prior.Text, found && strings.Contains(prior.Text, `"status":"ok"`)
		if found {
			observe(ryo.Step{Kind: ryo.StepToolDone, Tool: call.Tool, Args: call.Args, Status: statusOf(prior.Metadata), Result: prior.Text})
		}
		return r, err
	}
	res := a.cfg.Tools.Run(ctx, call)
	text := res.Text()
	observe(ryo.Step{Kind: ryo.StepToolDone, Tool: call.Tool, Args: call.Args, Status: res.Status, Took: res.Latency, Result: text})
	if res.Status == toolbus.StatusCancelled && ctx.Err() != nil {
		return r, ctx.Err()
	}
	stored, err := a.cfg.Store.SaveToolResult(ctx, ryo.Message{Place: in.Place, Kind: ryo.KindToolResult,
		Text: text, UpdateID: in.UpdateID, Metadata: res.Metadata(), Attachments: res.Attachments}, call.Key)
	r.text, r.ok = stored.Text, res.Status == toolbus.StatusOK
	return r, err
}

// call is the tool call an envelope's command makes, with its idempotency
// key: a tool that changes things is keyed without the round, so the same
// command twice in one turn runs once.
func (a *Agent) call(in Input, round int, c *Command) toolbus.Call {
	keyRound := round
	if spec, known := a.cfg.Tools.Lookup(c.Intent); known && spec.Effect != toolbus.ReadOnly {
		keyRound = 0
	}
	return toolbus.Call{ID: fmt.Sprintf("u%d-r%d", in.UpdateID, round), Key: toolbus.Key(in.UpdateID, keyRound, c.Intent, c.Slots),
		Tool: c.Intent, Args: c.Slots, AskFirst: c.RequiresConfirmation, Allowed: in.Tools}
}

// statusOf reads the status a stored tool result recorded.
func statusOf(meta json.RawMessage) string {
	var m struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(meta, &m) != nil || m.Status == "" {
		return toolbus.StatusError
	}
	return m.Status
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

// tally counts what the tools did over a turn.
type tally struct {
	toolTags  []string // tool:<name> of the calls that succeeded
	extraTags []string // the tags of those tools (memory:remember, …), and memory:recall when memories were shown
	changed   bool     // a tool that changes things succeeded
	modelTags []string
}

func (t *tally) add(tool string, r result) {
	if r.ok {
		t.toolTags = addTags(t.toolTags, "tool:"+tool)
		t.extraTags = addTags(t.extraTags, r.tags...)
		t.changed = t.changed || r.changes
	}
}

// tags are the turn's tags: tool tags first, then action tags, then the
// model's own (never tool:, action: or memory: ones), normalised.
func (t *tally) tags(out Output, env Envelope) []string {
	actions := []string{"action:answer"}
	switch {
	case out.Held != nil:
		actions = []string{"action:confirm"}
	case asks(env.Command) || env.FollowUpQuestion != nil && trimmed(*env.FollowUpQuestion) != "":
		actions = []string{"action:ask"}
	case len(t.toolTags) > 0:
		actions = []string{"action:use-tools"}
	}
	if out.Repairs > 0 {
		actions = append(actions, "action:repaired")
	}
	if out.CutOff {
		actions = append(actions, "action:cut-off")
	}
	tags := append(append(append([]string{}, t.toolTags...), t.extraTags...), actions...)
	var own []string
	for _, tag := range t.modelTags {
		if l := strings.ToLower(trimmed(tag)); !strings.HasPrefix(l, "tool:") && !strings.HasPrefix(l, "action:") && !strings.HasPrefix(l, "memory:") {
			own = addTags(own, tag)
		}
	}
	return append(tags, own...)
}

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
