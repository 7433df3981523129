package metrics

import (
	"time"

	"github.com/ryo-bot/ryo/bot"
)

// TurnEnded implements bot.Metrics.
func (m *Metrics) TurnEnded(outcome string) {
	m.turns.WithLabelValues(oneOf(outcome, bot.TurnAnswered, bot.TurnHeld, bot.TurnStopped, bot.TurnFailed, bot.TurnInterrupted, bot.TurnOverQuota)).Inc()
}

// TurnPhase implements bot.Metrics.
func (m *Metrics) TurnPhase(phase string, took time.Duration) {
	m.phases.WithLabelValues(oneOf(phase, bot.PhaseQueue, bot.PhaseModel, bot.PhaseTools, bot.PhaseDelivery)).Observe(took.Seconds())
}
