package agent

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/schema"
	"github.com/ryo-bot/ryo/toolbus"
)

// Model is the language model the agent asks.
type Model interface {
	Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)
}

// Store keeps tool results: they are context for the model in later rounds
// and turns, and they make every call run once.
type Store interface {
	// ToolResult returns the stored result of the call with key.
	ToolResult(ctx context.Context, key string) (ryo.Message, bool, error)
	// SaveToolResult stores m under key, or returns the result already
	// stored under it.
	SaveToolResult(ctx context.Context, m ryo.Message, key string) (ryo.Message, error)
}

// Config is what an agent is made of.
type Config struct {
	Model      Model
	Prompts    *prompts.Set
	Tools      *toolbus.Registry
	Store      Store
	Location   *time.Location // the time zone the model is told
	MaxRounds  int            // rounds per turn, each a model call (with its repairs) and perhaps a tool; default 4
	MaxRepairs int            // corrections of an invalid answer per round; default 2
	Clock      ryo.Clock      // the system clock when nil
	Tracer     trace.Tracer   // each model call is a span of the turn's trace; none when nil
}

// Agent answers turns.
type Agent struct {
	cfg     Config
	final   []byte         // the envelope schema without tools, for the last round
	answers *schema.Schema // what answers are checked against
}

// New returns an agent. Its tools are the registry's as they are at each
// turn: a category the registry replaces takes effect at the next turn.
func New(cfg Config) (*Agent, error) {
	if cfg.MaxRounds == 0 {
		cfg.MaxRounds = 4
	}
	if cfg.MaxRepairs == 0 {
		cfg.MaxRepairs = 2
	}
	if cfg.Clock == nil {
		cfg.Clock = ryo.SystemClock{}
	}
	if cfg.Tracer == nil {
		cfg.Tracer = noop.NewTracerProvider().Tracer("")
	}
	a := &Agent{cfg: cfg}
	var err error
	if a.final, err = prompts.Envelope(nil); err != nil {
		return nil, err
	}
	if a.answers, err = schema.Compile(prompts.OpenEnvelope()); err != nil {
		return nil, err
	}
	return a, nil
}

// Input is one turn to answer.
type Input struct {
	Bot      ryo.User // who the bot is in Telegram
	Chat     ryo.Chat
	Place    ryo.Place
	UpdateID int64         // the turn, for the tool calls' idempotency keys
	History  []ryo.Message // oldest first; the newest message of a person is the one to answer
	// Person is whom the turn answers, and Message the stored message it
	// answers (0 when none): tools learn them from their context.
	Person  ryo.User
	Message int64
	// Tools names the tools this person may use (their tier): the model is
	// shown only these, and the tool bus refuses any other. Nil means every
	// tool; an empty list, none.
	Tools []string
	// Force, when set, is the tool the turn's first round must call: the
	// format sent to the model then admits only a command of that tool,
	// with its arguments. Ignored when the person may not use it.
	Force string
	// Memories are what the bot remembers that may help with this turn,
	// shown to the model just before the message it answers.
	Memories []Memory
	// Model, when set, is the model to ask instead of the client's own: a
	// vision model when History holds pictures (ryo.Message.Images), which
	// it is shown with their messages.
	Model string
	// Persona, when set, is what the chat's admins say of the bot's
	// character there (/settings): shown in the system prompt as their
	// words, before the rules, which it cannot change.
	Persona string
	// Temperature, when set, is the chat's sampling temperature, sent with
	// every call of the turn.
	Temperature *float64
	// Observe, when set, is told each step of the turn as it happens: model
	// calls, tools, and the reply as it grows. It is called from Run's
	// goroutine and must not block.
	Observe func(ryo.Step)
}

// Memory is a remembered fact given to the model.
type Memory struct {
	ID      int64
	Content string
}

// Output is the answer, and how it came about.
type Output struct {
	Text          string
	Usage         ryo.Usage // summed over every model call
	Tags          []string  // tool:, action: and the envelope's tags, normalised
	Rounds        int
	Calls         int // model calls, repairs included
	Repairs       int
	Tools         []string // the tools that ran, in order
	ClaimedAction string   // a done-deed the reply claims though no tool did it; "" when none
	// CutOff reports that the model server stopped the answer at its
	// length limit: Text is the reply as far as it got, with a line that
	// says so.
	CutOff bool
	// Held is the command that waits for the person's yes, which ends the
	// turn; nil when none. Text is then what the model said about it.
	Held *Held
}

// Held is a command of the model that must wait for the person's yes.
type Held struct {
	Call   toolbus.Call
	Reason string // why: toolbus.HoldDestructive, HoldPolicy or HoldModel
}

var (
	// ErrUnusable is returned when the model's answers stay invalid after
	// every repair.
	ErrUnusable = &ryo.Error{Code: ryo.EUNAVAILABLE, Err: errors.New("model: no valid envelope after repairs"),
		Message: "I could not put together a proper answer this time. Please try again or rephrase."}
	// ErrCutOff is returned when the model's answer reached its length
	// limit before its reply began.
	ErrCutOff = &ryo.Error{Code: ryo.EUNAVAILABLE, Err: errors.New("model: answer cut off at its length limit before the reply began"),
		Message: "My answer grew too long and was cut off before I got to the point. Please ask for something shorter."}
	// ErrTooLong is returned when the turn's deadline passes.
	ErrTooLong = &ryo.Error{Code: ryo.ETIMEOUT, Err: errors.New("turn deadline passed"),
		Message: "This took too long, so I stopped. Please try a simpler request."}
)

// Run answers the newest message of in.History: it asks the model, runs the
// commands it gives through the tool bus, shows it the results, and stops at
// an answer without a command, at the round limit (the last round cannot
// call a tool), or at ctx's deadline.
func (a *Agent) Run(ctx context.Context, in Input) (Output, error) {
	tools := a.toolsFor(in) // one look at the registry for the whole turn
	msgs, err := a.prompt(in, tools)
	if err != nil {
		return Output{}, err
	}
	free, err := a.cfg.Prompts.Envelope(tools)
	if err != nil {
		return Output{}, err
	}
	var forced []byte
	if i := slices.IndexFunc(tools, func(t prompts.Tool) bool { return t.Name == in.Force }); in.Force != "" && i >= 0 {
		if forced, err = prompts.Forced(tools[i]); err != nil {
			return Output{}, err
		}
	}
	ctx = ryo.WithCaller(ctx, ryo.Caller{Person: in.Person, Chat: in.Chat, Place: in.Place, Message: in.Message})
	var out Output
	var t tally
	if len(in.Memories) > 0 {
		t.extraTags = addTags(t.extraTags, "memory:recall")
	}
	observe := in.Observe
	if observe == nil {
		observe = func(ryo.Step) {}
	}
	if forced != nil {
		observe(ryo.Step{Kind: ryo.StepForced, Tool: in.Force})
	}
	for out.Rounds = 1; ; out.Rounds++ {
		last := out.Rounds == a.cfg.MaxRounds
		if last && out.Rounds > 1 {
			msgs = append(msgs, ryo.ModelMessage{Role: ryo.ModelUser, Content: lastRoundNote})
		}
		format, force := free, ""
		switch {
		case last:
			format = a.final
		case out.Rounds == 1 && forced != nil:
			format, force = forced, in.Force
		}
		env, raw, err := a.ask(ctx, ryo.ModelRequest{Model: in.Model, Temperature: in.Temperature}, msgs, format, force, observe, &out)
		if err != nil {
			return out, a.deadline(ctx, err)
		}
		t.modelTags = append(t.modelTags, env.Tags...)
		if env.Command == nil || asks(env.Command) || last {
			return a.finish(out, env, &t), nil
		}
		call := a.call(in, out.Rounds, env.Command)
		if reason := a.cfg.Tools.Hold(call); reason != "" {
			observe(ryo.Step{Kind: ryo.StepConfirm, Tool: call.Tool, Args: call.Args})
			heldSpan(ctx, call.Tool, reason) // span.go
			out.Held = &Held{Call: call, Reason: reason}
			return a.finish(out, env, &t), nil
		}
		if ctx.Err() != nil { // stopped, or out of time, while the model answered: the tool does not start
			return out, a.deadline(ctx, context.Cause(ctx))
		}
		result, err := a.command(ctx, in, call, observe)
		if err != nil {
			return out, a.deadline(ctx, err)
		}
		t.add(env.Command.Intent, result)
		out.Tools = append(out.Tools, env.Command.Intent)
		msgs = append(msgs, ryo.ModelMessage{Role: ryo.ModelAssistant, Content: raw},
			ryo.ModelMessage{Role: ryo.ModelUser, Content: result.text})
	}
}

// toolsFor returns the tools in.Person may use as the registry holds them
// now, in its order, so that the system prompt stays the same bytes for
// the same tools.
func (a *Agent) toolsFor(in Input) []prompts.Tool {
	var tools []prompts.Tool
	for _, s := range a.cfg.Tools.Specs() {
		if in.Tools == nil || slices.Contains(in.Tools, s.Name) {
			tools = append(tools, prompts.Tool{Name: s.Name, Description: s.Description, Schema: s.Schema})
		}
	}
	return tools
}

// heldNote answers a held command the model said nothing about.
const heldNote = "I need your confirmation before I do this."

// cutNote ends a reply the model server cut off at its length limit.
const cutNote = "(Cut off here: the answer reached the most I may write at once.)"

const lastRoundNote = "This is your last step: answer the person now with what you have. No more tools."

// asks reports whether the command is held back by a question for the
// person: then the question is the answer, and nothing runs.
func asks(c *Command) bool {
	return c != nil && c.FollowUpQuestion != nil && trimmed(*c.FollowUpQuestion) != ""
}

// deadline turns the passing of the turn's deadline into an error the
// person can be shown.
func (a *Agent) deadline(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrTooLong
	}
	return err
}

// finish makes the output from the last envelope.
func (a *Agent) finish(out Output, env Envelope, t *tally) Output {
	out.Text = env.Reply
	for _, q := range []*string{env.FollowUpQuestion, questionOf(env.Command)} {
		if q != nil && trimmed(*q) != "" && !contains(out.Text, *q) {
			out.Text = join(out.Text, *q)
		}
	}
	switch {
	case out.Held != nil && trimmed(out.Text) == "":
		out.Text = heldNote
	case out.Held == nil && env.Command != nil && !asks(env.Command): // the round limit held it back
		out.Text = join(out.Text, "(I stopped there: that took more steps than I may take in one answer.)")
	case out.CutOff:
		out.Text = join(out.Text, cutNote)
	}
	out.Text = trimmed(out.Text) // not empty: ask repairs an empty reply
	if !t.changed {
		out.ClaimedAction = claimedAction(out.Text)
	}
	out.Tags = t.tags(out, env)
	return out
}

func questionOf(c *Command) *string {
	if c == nil {
		return nil
	}
	return c.FollowUpQuestion
}
