package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/ryo-bot/ryo/bot"
)

// Metrics holds ryo's counters and histograms. It implements
// toolbus.Observer, delivery.Observer and bot.Metrics, and is safe for
// concurrent use.
type Metrics struct {
	toolCalls    *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec
	toolErrors   *prometheus.CounterVec
	codes        *bounded // the error codes seen, at most maxCodes
	httpCodes    *bounded // the http_<status> codes seen, at most maxHTTPCodes

	turns  *prometheus.CounterVec
	phases *prometheus.HistogramVec

	modelCalls *prometheus.CounterVec
	tokens     *prometheus.CounterVec

	telegramCalls *prometheus.CounterVec
	tooMany       *prometheus.CounterVec
	retryAfter    prometheus.Counter
}

// New makes ryo's metrics and registers them with reg.
func New(reg prometheus.Registerer) *Metrics {
	// Buckets, in seconds. A tool answers in milliseconds (arithmetic) to
	// minutes (a picture); a phase of a turn takes milliseconds (a queue
	// with room) to the turn's limit (RYO_TURN_TIMEOUT, 10 minutes by
	// default).
	toolBuckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}
	phaseBuckets := []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600}
	f := promauto.With(reg)
	m := &Metrics{
		toolCalls: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_tool_calls_total",
			Help: "Tool calls the tool bus ran, by tool and status (ok, error, cancelled, denied)."}, []string{"tool", "status"}),
		toolDuration: f.NewHistogramVec(prometheus.HistogramOpts{Name: "ryo_tool_duration_seconds",
			Help: "How long tools ran, by tool; calls refused before running are not timed.", Buckets: toolBuckets}, []string{"tool"}),
		toolErrors: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_tool_errors_total",
			Help: "Tool calls that did not end ok, by tool and error code."}, []string{"tool", "code"}),
		codes:     newBounded(maxCodes),
		httpCodes: newBounded(maxHTTPCodes),

		turns: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_turns_total",
			Help: "Runs of turns, by how they ended (answered, held, stopped, failed, interrupted, over_quota)."}, []string{"outcome"}),
		phases: f.NewHistogramVec(prometheus.HistogramOpts{Name: "ryo_turn_phase_duration_seconds",
			Help: "How long turns spent in each phase (queue, model, tools, delivery).", Buckets: phaseBuckets}, []string{"phase"}),

		modelCalls: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_model_calls_total",
			Help: "Calls to the chat model, by outcome (ok, error)."}, []string{"outcome"}),
		tokens: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_model_tokens_total",
			Help: "Tokens the model server reported, by direction: in (the prompt) and out (the reply)."}, []string{"direction"}),

		telegramCalls: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_telegram_calls_total",
			Help: "Calls to the Telegram Bot API, each try counted, by method and outcome."}, []string{"method", "outcome"}),
		tooMany: f.NewCounterVec(prometheus.CounterOpts{Name: "ryo_telegram_too_many_requests_total",
			Help: "Calls Telegram refused with 429 Too Many Requests (flood control), by method."}, []string{"method"}),
		retryAfter: f.NewCounter(prometheus.CounterOpts{Name: "ryo_telegram_retry_after_seconds_total",
			Help: "Seconds Telegram's 429 answers asked the bot to wait, added up."}),
	}
	m.start()
	return m
}

// start makes the series whose labels are known in advance, at zero, so
// that they are there from the first scrape.
func (m *Metrics) start() {
	for _, o := range []string{bot.TurnAnswered, bot.TurnHeld, bot.TurnStopped, bot.TurnFailed, bot.TurnInterrupted, bot.TurnOverQuota} {
		m.turns.WithLabelValues(o)
	}
	for _, p := range []string{bot.PhaseQueue, bot.PhaseModel, bot.PhaseTools, bot.PhaseDelivery} {
		m.phases.WithLabelValues(p)
	}
	for _, o := range []string{outcomeOK, outcomeError} {
		m.modelCalls.WithLabelValues(o)
	}
	for _, d := range []string{directionIn, directionOut} {
		m.tokens.WithLabelValues(d)
	}
}
