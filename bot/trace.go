package bot

import (
	"cmp"
	"encoding/json"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/toolbus"
)

// A turn's trace is what the inspector (inspect.go) shows: each model call
// and each tool call of the turn, in order, recorded as the agent reports
// its steps and stored with the answer, in the same transaction, before it
// is delivered (memory.TurnAnswer).

// tracer records a running turn's steps. The agent reports them from its
// goroutine; the turn reads them once the agent has returned.
type tracer struct {
	clock ryo.Clock
	model string // the turn's model, for calls that do not name one

	mu         sync.Mutex
	steps      []memory.TraceStep
	leftOut    int       // steps past memory.MaxTraceSteps
	toolFrom   time.Time // when the running tool began
	confirming bool      // the steps are a confirmed action's run
}

// tracing is a recorder for turn t's steps.
func (b *Bot) tracing(t talk) *tracer {
	return &tracer{clock: b.cfg.Clock, model: cmp.Or(t.asked(), b.model)}
}

// traceOf is turn t's recorder as the model is asked, with the turn's
// model, decided once the history was looked at.
func (b *Bot) traceOf(t talk) *tracer {
	r := t.trace
	if r == nil {
		r = b.tracing(t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.model, r.confirming = cmp.Or(t.asked(), b.model), false
	return r
}

// confirmed wraps observe to record the steps of a confirmed action's run,
// marked confirmed; a nil recorder records nothing.
func (r *tracer) confirmed(observe func(ryo.Step)) func(ryo.Step) {
	if r == nil {
		return observe
	}
	r.mu.Lock()
	r.confirming = true
	r.mu.Unlock()
	return r.observing(observe)
}

// observing wraps observe to record each step before passing it on.
func (r *tracer) observing(observe func(ryo.Step)) func(ryo.Step) {
	return func(s ryo.Step) {
		r.observe(s)
		observe(s)
	}
}

func (r *tracer) observe(s ryo.Step) {
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch s.Kind {
	case ryo.StepAnswered:
		step := memory.TraceStep{Kind: memory.TraceModel, Started: now.Add(-s.Took), TookMS: ms(s.Took),
			Model: s.Model, PromptTokens: s.Usage.PromptTokens, ReplyTokens: s.Usage.ReplyTokens, Repair: s.Repair, Err: s.Err}
		if step.Model == "" {
			step.Model = r.model
		}
		if s.Err != "" {
			step.Status = traceFailed
		}
		r.add(step)
	case ryo.StepTool:
		r.toolFrom = now
	case ryo.StepToolDone:
		r.add(memory.TraceStep{Kind: memory.TraceTool, Started: r.toolFrom, TookMS: ms(s.Took), Tool: s.Tool,
			Args: string(s.Args), Result: s.Result, Status: s.Status, Confirmed: r.confirming})
	case ryo.StepConfirm:
		r.add(memory.TraceStep{Kind: memory.TraceTool, Started: now, Tool: s.Tool, Args: string(s.Args), Status: traceHeld})
	}
}

// ranTool reports whether the turn called a tool (held ones aside); false
// for a nil recorder.
func (r *tracer) ranTool() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.steps {
		if s.Kind == memory.TraceTool && s.Status != traceHeld {
			return true
		}
	}
	return false
}

// add keeps step, or counts it past the cap.
func (r *tracer) add(step memory.TraceStep) {
	if len(r.steps) >= memory.MaxTraceSteps {
		r.leftOut++
		return
	}
	r.steps = append(r.steps, step)
}

// Statuses of trace steps beside the tool bus's own.
const (
	traceHeld    = "held"    // waits for the person's yes
	traceStopped = "stopped" // someone stopped the turn during it
	traceFailed  = "failed"  // a model call that failed
)

// trace is the turn's trace as stored: out is the agent's output, meta the
// answer's metadata (its outcome), took the turn's time.
func (r *tracer) trace(t talk, out agent.Output, meta json.RawMessage, took time.Duration) memory.Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	outcome := answered(meta)
	steps := append([]memory.TraceStep(nil), r.steps...)
	if outcome == TurnStopped { // the call or tool the stop cut short
		for i := range steps {
			if steps[i].Status == traceFailed || steps[i].Status == toolbus.StatusCancelled {
				steps[i].Status = traceStopped
			}
		}
	}
	return memory.Trace{UpdateID: t.id, ChatID: t.place.ChatID, Thread: int64(t.place.Thread), AskerID: t.person.ID,
		Model: r.model, Outcome: outcome, Took: took, PromptTokens: int64(out.Usage.PromptTokens),
		ReplyTokens: int64(out.Usage.ReplyTokens), Steps: steps, StepsLeftOut: r.leftOut}
}
