package bot

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/toolbus"
)

// Metrics is told what the bot does, for /metrics: every call to Telegram,
// every call of its commands' tools, and how each turn went. Its methods
// must be safe for concurrent use and must not block.
type Metrics interface {
	delivery.Observer
	toolbus.Observer
	// TurnEnded reports how a run of a turn ended: one of the Turn*
	// outcomes. A turn interrupted and resumed is told once per run.
	TurnEnded(outcome string)
	// TurnPhase reports how long a turn spent in phase, one of the
	// Phase* names.
	TurnPhase(phase string, took time.Duration)
}

// How a run of a turn ended.
const (
	TurnAnswered    = "answered"    // the answer was delivered
	TurnHeld        = "held"        // the answer asks the person to confirm an action
	TurnFailed      = "failed"      // the person was told there is no answer
	TurnStopped     = "stopped"     // someone stopped it: what was written is the answer
	TurnOverQuota   = "over_quota"  // the person had used up their quota: told when they can ask again, the model not asked
	TurnInterrupted = "interrupted" // shutdown or an outage: it runs again
	TurnEdited      = "edited"      // its message was edited: the edit is answered instead
)

// The phases of a turn.
const (
	PhaseQueue    = "queue"    // from the update's arrival to the start of its turn
	PhaseModel    = "model"    // the agent's work less its tools': the model, mostly
	PhaseTools    = "tools"    // the tools the turn ran; told only when it ran one
	PhaseDelivery = "delivery" // sending the answer and its files, Telegram's limits included
)

// noMetrics is told everything and keeps nothing.
type noMetrics struct{}

func (noMetrics) TelegramCalled(string, string, time.Duration) {}
func (noMetrics) ToolCalled(string, toolbus.Result)            {}
func (noMetrics) TurnEnded(string)                             {}
func (noMetrics) TurnPhase(string, time.Duration)              {}

// turnEnded tells how a run of a turn ended: outcome when it returned no
// error; one that returned an error was interrupted when it runs again,
// and failed otherwise — as it did when it panicked (no outcome, no error).
func (b *Bot) turnEnded(ctx context.Context, outcome string, err error) {
	switch {
	case err == nil && outcome != "":
	case err != nil && (ctx.Err() != nil || ryo.IsUnavailable(err, ryo.Database) || ryo.IsUnavailable(err, ryo.Telegram)):
		outcome = TurnInterrupted
	default:
		outcome = TurnFailed
	}
	b.metrics().TurnEnded(outcome)
	traceOutcome(ctx, outcome) // span.go
}

// answered is the outcome of a turn whose answer, with metadata meta, is
// delivered.
func answered(meta json.RawMessage) string {
	var about struct { // of answerAbout, what tells the outcome
		Held    bool `json:"held"`
		Stopped bool `json:"stopped"`
	}
	if json.Unmarshal(meta, &about) == nil && about.Held {
		return TurnHeld
	}
	if about.Stopped {
		return TurnStopped
	}
	return TurnAnswered
}

// agentPhases tells the model's and the tools' share of an agent run that
// took took, of which tools ran for toolsTook (ranTools: any at all).
func (b *Bot) agentPhases(took, toolsTook time.Duration, ranTools bool) {
	b.metrics().TurnPhase(PhaseModel, max(took-toolsTook, 0))
	if ranTools {
		b.metrics().TurnPhase(PhaseTools, toolsTook)
	}
}

func (b *Bot) metrics() Metrics {
	if b.cfg.Metrics == nil {
		return noMetrics{}
	}
	return b.cfg.Metrics
}
