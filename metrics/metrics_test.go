package metrics_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/metrics"
	"github.com/ryo-bot/ryo/toolbus"
)

// store is a backlog store with fixed figures, or one that never answers.
type store struct {
	backlog memory.Backlog
	hang    bool
}

func (s store) Backlog(ctx context.Context) (memory.Backlog, error) {
	if s.hang {
		if _, ok := ctx.Deadline(); !ok {
			return memory.Backlog{}, errors.New("asked without a deadline")
		}
		<-ctx.Done()
		return memory.Backlog{}, fmt.Errorf("count the backlog: %w", ctx.Err())
	}
	return s.backlog, nil
}

// model answers with fixed figures, and fails when err is set.
type model struct {
	usage ryo.Usage
	err   error
}

func (m model) Chat(context.Context, ryo.ModelRequest) (ryo.ModelReply, error) {
	return ryo.ModelReply{Content: "{}", Usage: m.usage}, m.err
}

func newMetrics(t *testing.T, s store) (*prometheus.Registry, *metrics.Metrics, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	reg.MustRegister(metrics.NewBacklog(s, 50*time.Millisecond, slog.New(slog.NewTextHandler(&logs, nil))))
	return reg, m, &logs
}

// everything tells m one of each thing it counts.
func everything(m *metrics.Metrics) {
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusOK, Attempts: 1, Latency: 3 * time.Millisecond})
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: "math_error"}, Attempts: 1})
	m.TelegramCalled("sendMessage", delivery.OutcomeTooManyRequests, 7*time.Second)
	m.TurnEnded(bot.TurnAnswered)
	m.TurnPhase(bot.PhaseModel, 2*time.Second)
	m.Model(model{usage: ryo.Usage{PromptTokens: 26, ReplyTokens: 282}}).Chat(context.Background(), ryo.ModelRequest{})
}

// Every metric has a name and help text Prometheus's conventions accept,
// and the names are the ones the README documents.
func TestNamesAndHelpPassTheLint(t *testing.T) {
	reg, m, _ := newMetrics(t, store{backlog: memory.Backlog{Inbox: 1}})
	everything(m)
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "ryo_") {
			names = append(names, f.GetName())
			if len(f.GetHelp()) < 20 {
				t.Errorf("%s: help %q says too little", f.GetName(), f.GetHelp())
			}
		}
	}
	want := "[ryo_database_up ryo_dead_letters ryo_inbox_updates ryo_model_calls_total ryo_model_tokens_total ryo_pending_actions " +
		"ryo_telegram_calls_total ryo_telegram_retry_after_seconds_total ryo_telegram_too_many_requests_total " +
		"ryo_tool_calls_total ryo_tool_duration_seconds ryo_tool_errors_total ryo_turn_phase_duration_seconds ryo_turns_total]"
	if fmt.Sprint(names) != want {
		t.Fatalf("metrics\n%v\nwant\n%s", names, want)
	}
}

// Each call is counted by tool and status; a failed one by its code too;
// only those that ran are timed.
func TestToolCalls(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusOK, Attempts: 1, Latency: 250 * time.Millisecond})
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusOK, Attempts: 1, Latency: 500 * time.Millisecond})
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: "invalid_arguments"}})
	m.ToolCalled("web_fetch", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: "timeout"}, Attempts: 2, Latency: 20 * time.Second})
	m.ToolCalled(toolbus.UnknownTool, toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: "unknown_tool"}})
	m.ToolCalled("forget", toolbus.Result{Status: toolbus.StatusDenied, Error: &toolbus.Error{Code: "not_allowed"}})
	want := `
# HELP ryo_tool_calls_total Tool calls the tool bus ran, by tool and status (ok, error, cancelled, denied).
# TYPE ryo_tool_calls_total counter
ryo_tool_calls_total{status="denied",tool="forget"} 1
ryo_tool_calls_total{status="error",tool="(unknown)"} 1
ryo_tool_calls_total{status="error",tool="calculate"} 1
ryo_tool_calls_total{status="error",tool="web_fetch"} 1
ryo_tool_calls_total{status="ok",tool="calculate"} 2
# HELP ryo_tool_errors_total Tool calls that did not end ok, by tool and error code.
# TYPE ryo_tool_errors_total counter
ryo_tool_errors_total{code="invalid_arguments",tool="calculate"} 1
ryo_tool_errors_total{code="not_allowed",tool="forget"} 1
ryo_tool_errors_total{code="timeout",tool="web_fetch"} 1
ryo_tool_errors_total{code="unknown_tool",tool="(unknown)"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "ryo_tool_calls_total", "ryo_tool_errors_total"); err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(reg, "ryo_tool_duration_seconds"); n != 2 {
		t.Fatalf("%d tools timed; want calculate and web_fetch, the two that ran", n)
	}
	calc := histogram(t, reg, "ryo_tool_duration_seconds", "calculate")
	if calc.GetSampleCount() != 2 || calc.GetSampleSum() != 0.75 {
		t.Fatalf("calculate timed %d times, %v s in all; want 2 and 0.75", calc.GetSampleCount(), calc.GetSampleSum())
	}
}

// histogram is the histogram of metric name whose one label is value.
func histogram(t *testing.T, reg *prometheus.Registry, name, value string) interface {
	GetSampleCount() uint64
	GetSampleSum() float64
} {
	t.Helper()
	families, _ := reg.Gather()
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == name && m.GetLabel()[0].GetValue() == value {
				return m.GetHistogram()
			}
		}
	}
	t.Fatalf("no %s{%s}", name, value)
	return nil
}

// Error codes are labels of a few plain characters, and only so many of
// them: a tool that makes up a code per call cannot grow the series
// without end.
func TestErrorCodesAreBounded(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	fail := func(code string) {
		m.ToolCalled("weather_forecast", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: code}})
	}
	fail("HTTP 404")
	fail("")
	fail("Ünïcode—and a very long code that goes on and on past any reason")
	for i := range 500 { // http_100 to http_599: http_404 is known by then, the first 39 new ones fit
		fail(fmt.Sprintf("http_%d", 100+i))
	}
	codes := errorCodes(reg)
	if len(codes) != 43 {
		t.Errorf("%d codes; want 42 and other", len(codes))
	}
	for code, n := range map[string]float64{"http_404": 2, "none": 1, "_n_code_and_a_very_long_code_tha": 1, "http_138": 1, "other": 460} {
		if codes[code] != n {
			t.Errorf("code %q counted %v times; want %v", code, codes[code], n)
		}
	}
}

// errorCodes are the counts of ryo_tool_errors_total by code.
func errorCodes(reg *prometheus.Registry) map[string]float64 {
	codes := map[string]float64{}
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() != "ryo_tool_errors_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "code" {
					codes[l.GetValue()] += s.GetCounter().GetValue()
				}
			}
		}
	}
	return codes
}

// An API that answers with every HTTP status there is, and the codes its
// tools make of them, do not use up the codes counted apart: the tool
// bus's own, and the built-in tools', are still counted by name after it.
func TestAnAPIsStatusesLeaveRoomForOtherCodes(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	for i := range 500 {
		m.ToolCalled("weather_get_forecast", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: fmt.Sprintf("http_%d", 100+i)}})
	}
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: toolbus.CodeTimeout}, Attempts: 1})
	m.ToolCalled("calculate", toolbus.Result{Status: toolbus.StatusError, Error: &toolbus.Error{Code: "math_error"}, Attempts: 1})
	codes := errorCodes(reg)
	if codes["timeout"] != 1 || codes["math_error"] != 1 {
		t.Errorf("timeout counted %v times, math_error %v; want each once, by name", codes["timeout"], codes["math_error"])
	}
}

// Telegram's calls are counted by method and outcome from fixed lists; a
// 429 also by itself, with the wait it asked for.
func TestTelegramCalls(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	m.TelegramCalled("sendMessage", delivery.OutcomeOK, 0)
	m.TelegramCalled("sendMessage", delivery.OutcomeTooManyRequests, 7*time.Second)
	m.TelegramCalled("sendMessage", delivery.OutcomeOK, 0)
	m.TelegramCalled("editMessageText", delivery.OutcomeTooManyRequests, 3*time.Second)
	m.TelegramCalled("getUpdates", delivery.OutcomeConflict, 0)
	m.TelegramCalled("sendSticker/7123456789", "who knows", 0)
	want := `
# HELP ryo_telegram_calls_total Calls to the Telegram Bot API, each try counted, by method and outcome.
# TYPE ryo_telegram_calls_total counter
ryo_telegram_calls_total{method="editMessageText",outcome="too_many_requests"} 1
ryo_telegram_calls_total{method="getUpdates",outcome="conflict"} 1
ryo_telegram_calls_total{method="other",outcome="other"} 1
ryo_telegram_calls_total{method="sendMessage",outcome="ok"} 2
ryo_telegram_calls_total{method="sendMessage",outcome="too_many_requests"} 1
# HELP ryo_telegram_retry_after_seconds_total Seconds Telegram's 429 answers asked the bot to wait, added up.
# TYPE ryo_telegram_retry_after_seconds_total counter
ryo_telegram_retry_after_seconds_total 10
# HELP ryo_telegram_too_many_requests_total Calls Telegram refused with 429 Too Many Requests (flood control), by method.
# TYPE ryo_telegram_too_many_requests_total counter
ryo_telegram_too_many_requests_total{method="editMessageText"} 1
ryo_telegram_too_many_requests_total{method="sendMessage"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"ryo_telegram_calls_total", "ryo_telegram_retry_after_seconds_total", "ryo_telegram_too_many_requests_total"); err != nil {
		t.Fatal(err)
	}
}

// Turns are counted by outcome, every outcome from the start; phases are
// timed.
func TestTurns(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	m.TurnEnded(bot.TurnAnswered)
	m.TurnEnded(bot.TurnAnswered)
	m.TurnEnded(bot.TurnHeld)
	m.TurnEnded("exploded")
	m.TurnPhase(bot.PhaseQueue, 20*time.Millisecond)
	m.TurnPhase(bot.PhaseModel, 3*time.Second)
	m.TurnPhase(bot.PhaseModel, 5*time.Second)
	want := `
# HELP ryo_turns_total Runs of turns, by how they ended (answered, held, stopped, failed, interrupted, over_quota).
# TYPE ryo_turns_total counter
ryo_turns_total{outcome="answered"} 2
ryo_turns_total{outcome="failed"} 0
ryo_turns_total{outcome="held"} 1
ryo_turns_total{outcome="interrupted"} 0
ryo_turns_total{outcome="other"} 1
ryo_turns_total{outcome="over_quota"} 0
ryo_turns_total{outcome="stopped"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "ryo_turns_total"); err != nil {
		t.Fatal(err)
	}
	if model := histogram(t, reg, "ryo_turn_phase_duration_seconds", bot.PhaseModel); model.GetSampleCount() != 2 || model.GetSampleSum() != 8 {
		t.Fatalf("model phase: %d turns, %v s; want 2 and 8", model.GetSampleCount(), model.GetSampleSum())
	}
	if tools := histogram(t, reg, "ryo_turn_phase_duration_seconds", bot.PhaseTools); tools.GetSampleCount() != 0 {
		t.Fatalf("tools phase timed %d times; want none", tools.GetSampleCount())
	}
}

// The tokens the model server reports are counted, those of a call that
// failed too.
func TestModelTokens(t *testing.T) {
	reg, m, _ := newMetrics(t, store{})
	// Figures of a real Ollama answer: llama3.2 telling a short story.
	m.Model(model{usage: ryo.Usage{PromptTokens: 26, ReplyTokens: 282}}).Chat(context.Background(), ryo.ModelRequest{})
	failing := m.Model(model{usage: ryo.Usage{PromptTokens: 1200, ReplyTokens: 9}, err: errors.New("model stream ended without done")})
	if _, err := failing.Chat(context.Background(), ryo.ModelRequest{}); err == nil {
		t.Fatal("the model's error was lost")
	}
	want := `
# HELP ryo_model_calls_total Calls to the chat model, by outcome (ok, error).
# TYPE ryo_model_calls_total counter
ryo_model_calls_total{outcome="error"} 1
ryo_model_calls_total{outcome="ok"} 1
# HELP ryo_model_tokens_total Tokens the model server reported, by direction: in (the prompt) and out (the reply).
# TYPE ryo_model_tokens_total counter
ryo_model_tokens_total{direction="in"} 1226
ryo_model_tokens_total{direction="out"} 291
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "ryo_model_calls_total", "ryo_model_tokens_total"); err != nil {
		t.Fatal(err)
	}
}

// The backlog is read at scrape time; a database that does not answer in
// time leaves it out and says so, and the scrape still serves the rest.
func TestBacklog(t *testing.T) {
	reg, _, _ := newMetrics(t, store{backlog: memory.Backlog{Inbox: 3, PendingActions: 1, DeadLetters: 2}})
	want := `
# HELP ryo_database_up Whether the database answered the scrape's backlog query in time (1) or not (0).
# TYPE ryo_database_up gauge
ryo_database_up 1
# HELP ryo_dead_letters Updates in the dead letter that no admin has retried (/deadletter).
# TYPE ryo_dead_letters gauge
ryo_dead_letters 2
# HELP ryo_inbox_updates Updates in the inbox not finished yet: waiting for their turn or being answered.
# TYPE ryo_inbox_updates gauge
ryo_inbox_updates 3
# HELP ryo_pending_actions Actions waiting for a person's yes that have not expired.
# TYPE ryo_pending_actions gauge
ryo_pending_actions 1
`
	names := []string{"ryo_database_up", "ryo_dead_letters", "ryo_inbox_updates", "ryo_pending_actions"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}

	reg, m, logs := newMetrics(t, store{hang: true})
	m.TurnEnded(bot.TurnAnswered)
	down := `
# HELP ryo_database_up Whether the database answered the scrape's backlog query in time (1) or not (0).
# TYPE ryo_database_up gauge
ryo_database_up 0
# HELP ryo_turns_total Runs of turns, by how they ended (answered, held, stopped, failed, interrupted, over_quota).
# TYPE ryo_turns_total counter
ryo_turns_total{outcome="answered"} 1
ryo_turns_total{outcome="failed"} 0
ryo_turns_total{outcome="held"} 0
ryo_turns_total{outcome="interrupted"} 0
ryo_turns_total{outcome="over_quota"} 0
ryo_turns_total{outcome="stopped"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(down), append(names, "ryo_turns_total")...); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "context deadline exceeded") {
		t.Fatalf("the failure was not logged: %q", logs.String())
	}
}
