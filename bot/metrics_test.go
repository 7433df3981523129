package bot_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/toolbus"
)

// told is a bot.Metrics that keeps what it is told.
type told struct {
	mu       sync.Mutex
	turns    []string
	phases   map[string][]time.Duration
	telegram map[string]int // "method outcome"
	changed  chan struct{}
}

func newTold() *told {
	return &told{phases: map[string][]time.Duration{}, telegram: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (m *told) TelegramCalled(method, outcome string, _ time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.telegram[method+" "+outcome]++
}

func (m *told) ToolCalled(string, toolbus.Result) {}

func (m *told) TurnEnded(outcome string) {
	m.mu.Lock()
	m.turns = append(m.turns, outcome)
	m.mu.Unlock()
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

func (m *told) TurnPhase(phase string, took time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.phases[phase] = append(m.phases[phase], took)
}

// waitTurns waits until n turns have ended and returns their outcomes.
func (m *told) waitTurns(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		m.mu.Lock()
		turns := slices.Clone(m.turns)
		m.mu.Unlock()
		if len(turns) >= n {
			return turns
		}
		select {
		case <-m.changed:
		case <-deadline:
			t.Fatalf("%d turns ended; want %d", len(turns), n)
		}
	}
}

// The bot tells how each turn ended and how long its phases took — the
// tools' time as the tools reported it — and each call it made to
// Telegram.
func TestBotTellsItsMetrics(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	calls := 0
	m := newTold()
	b, err := bot.New(bot.Config{Token: token, APIURL: tg.URL(), Workers: 2, PollTimeout: 2 * time.Second,
		CallTimeout: 5 * time.Second, HistoryLimit: 10, MaxAttempts: 5, Metrics: m},
		slog.New(slog.DiscardHandler), db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
			calls++
			switch calls {
			case 1:
				in.Observe(ryo.Step{Kind: ryo.StepTool, Tool: "calculate"})
				in.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: "calculate", Status: toolbus.StatusOK, Took: 1500 * time.Millisecond})
				return agent.Output{Text: "6 × 7 = 42"}, nil
			case 2:
				return agent.Output{}, errors.New("the model said nothing useful")
			}
			panic("boom")
		}), "test-model")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	tg.SendText(dm, alice, "what is 6*7")
	if got := m.waitTurns(t, 1); fmt.Sprint(got) != "[answered]" {
		t.Fatalf("turns = %v", got)
	}
	tg.SendText(dm, alice, "and now?")
	m.waitTurns(t, 2)
	tg.SendText(dm, alice, "and now??")
	if got := m.waitTurns(t, 3); fmt.Sprint(got) != "[answered failed failed]" {
		t.Fatalf("turns = %v; want the model's failure and the panic failed", got)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tools := m.phases[bot.PhaseTools]; fmt.Sprint(tools) != "[1.5s]" {
		t.Errorf("tools phase = %v; want the one tool's 1.5s", tools)
	}
	// The queue and the model are timed for every turn that got that far
	// (the panic happened in the model's place); delivery only for the
	// answer.
	if q, mo, d := len(m.phases[bot.PhaseQueue]), len(m.phases[bot.PhaseModel]), len(m.phases[bot.PhaseDelivery]); q != 3 || mo != 2 || d != 1 {
		t.Errorf("timed queue %d, model %d, delivery %d times; want 3, 2, 1", q, mo, d)
	}
	if m.telegram["sendMessage ok"] == 0 || m.telegram["getUpdates ok"] == 0 || m.telegram["getMe ok"] != 1 {
		t.Errorf("telegram calls = %v", m.telegram)
	}
}
