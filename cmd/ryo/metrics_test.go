package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// scrape reads /metrics from the running bot as Prometheus would.
func scrape(t *testing.T, h *harness) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+h.main.HTTPAddr.String()+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics = %s, %s:\n%s", resp.Status, resp.Header.Get("Content-Type"), body)
	}
	return string(body)
}

// sample is the value of series (name and labels, as the text format
// writes them) in a scrape, and false when it is not there.
func sample(scraped, series string) (float64, bool) {
	for _, line := range strings.Split(scraped, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// After a turn that ran the calculator, /metrics shows the call, the
// model's tokens as the model server reported them, the turn and its
// phases, Telegram's calls and the backlog — and no chat or person.
func TestMetricsAfterACalculatorTurn(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`), PromptEvalCount: 812, EvalCount: 23},
		ollamatest.Reply{Content: envelope("6 × 7 = 42"), PromptEvalCount: 905, EvalCount: 11})
	h.start()
	q := h.tg.SendText(dm, alice, "what is 6*7")
	h.answer(dm, q.ID, "42")
	h.waitFor("the turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })

	want := `
# HELP ryo_tool_calls_total Tool calls the tool bus ran, by tool and status (ok, error, cancelled, denied).
# TYPE ryo_tool_calls_total counter
ryo_tool_calls_total{status="ok",tool="calculate"} 1
# HELP ryo_model_tokens_total Tokens the model server reported, by direction: in (the prompt) and out (the reply).
# TYPE ryo_model_tokens_total counter
ryo_model_tokens_total{direction="in"} 1717
ryo_model_tokens_total{direction="out"} 34
# HELP ryo_turns_total Runs of turns, by how they ended (answered, held, stopped, failed, interrupted, over_quota).
# TYPE ryo_turns_total counter
ryo_turns_total{outcome="answered"} 1
ryo_turns_total{outcome="failed"} 0
ryo_turns_total{outcome="held"} 0
ryo_turns_total{outcome="interrupted"} 0
ryo_turns_total{outcome="over_quota"} 0
ryo_turns_total{outcome="stopped"} 0
# HELP ryo_inbox_updates Updates in the inbox not finished yet: waiting for their turn or being answered.
# TYPE ryo_inbox_updates gauge
ryo_inbox_updates 0
# HELP ryo_database_up Whether the database answered the scrape's backlog query in time (1) or not (0).
# TYPE ryo_database_up gauge
ryo_database_up 1
`
	endpoint := "http://" + h.main.HTTPAddr.String() + "/metrics"
	if err := testutil.ScrapeAndCompare(endpoint, strings.NewReader(want),
		"ryo_tool_calls_total", "ryo_model_tokens_total", "ryo_turns_total", "ryo_inbox_updates", "ryo_database_up"); err != nil {
		t.Fatal(err)
	}
	got := scrape(t, h)
	for series, want := range map[string]float64{
		`ryo_tool_duration_seconds_count{tool="calculate"}`:          1,
		`ryo_model_calls_total{outcome="ok"}`:                        2,
		`ryo_turn_phase_duration_seconds_count{phase="queue"}`:       1,
		`ryo_turn_phase_duration_seconds_count{phase="model"}`:       1,
		`ryo_turn_phase_duration_seconds_count{phase="tools"}`:       1,
		`ryo_turn_phase_duration_seconds_count{phase="delivery"}`:    1,
		`ryo_telegram_calls_total{method="getMe",outcome="ok"}`:      1,
		`ryo_telegram_too_many_requests_total{method="sendMessage"}`: 0,
		`ryo_pending_actions`:                                        0,
		`ryo_dead_letters`:                                           0,
	} {
		if v, ok := sample(got, series); v != want || (!ok && want != 0) {
			t.Errorf("%s = %v (shown: %v); want %v", series, v, ok, want)
		}
	}
	for _, series := range []string{`ryo_telegram_calls_total{method="sendMessage",outcome="ok"}`, `ryo_telegram_calls_total{method="getUpdates",outcome="ok"}`} {
		if v, _ := sample(got, series); v < 1 {
			t.Errorf("%s = %v; want the calls counted", series, v)
		}
	}
	if strings.Contains(got, `method="other"`) {
		t.Error("a Telegram method the metrics do not know was called")
	}
	for _, id := range []int64{alice.ID, dm.ID, int64(q.ID)} {
		if strings.Contains(got, `"`+strconv.FormatInt(id, 10)+`"`) {
			t.Errorf("the id %d is a label value", id)
		}
	}
	if !strings.Contains(got, "go_goroutines ") || !strings.Contains(got, "process_cpu_seconds_total ") {
		t.Error("Go's and the process's own metrics are missing")
	}
}

// The tools of the bot's own commands are counted like the model's.
func TestMetricsCountCommandTools(t *testing.T) {
	h := newHarness(t)
	h.start()
	mine := h.remember(alice.ID, ryo.ScopeUser, dm.ID, "Alice's locker code is 1234")
	h.tg.SendText(dm, alice, fmt.Sprintf("/forget %d", mine.ID))
	p := h.prompt(dm)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "✅ Confirmed by Alice at ")
	got := scrape(t, h)
	if v, _ := sample(got, `ryo_tool_calls_total{status="ok",tool="forget"}`); v != 1 {
		t.Errorf("forget calls = %v; want 1:\n%s", v, got)
	}
	if v, _ := sample(got, `ryo_telegram_calls_total{method="answerCallbackQuery",outcome="ok"}`); v < 1 {
		t.Errorf("answerCallbackQuery calls = %v; want the press answered", v)
	}
}

// A scrape while the database is away answers with what it can, says the
// database is down, and logs why.
func TestMetricsWithoutTheDatabase(t *testing.T) {
	h := newHarness(t)
	u, _ := url.Parse(h.env["DATABASE_URL"])
	p := newProxy(t, u.Host)
	u.Host = p.addr()
	h.env["DATABASE_URL"] = u.String()
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello.")})
	h.start()
	q := h.tg.SendText(dm, alice, "hi")
	h.answer(dm, q.ID, "Hello.")
	shows := func(series string, want float64) func() bool {
		return func() bool { v, ok := sample(scrape(t, h), series); return ok && v == want }
	}
	h.waitFor("the turn counted", shows(`ryo_turns_total{outcome="answered"}`, 1))

	p.cut()
	got := scrape(t, h)
	if v, ok := sample(got, "ryo_database_up"); !ok || v != 0 {
		t.Fatalf("ryo_database_up = %v (shown: %v); want 0", v, ok)
	}
	if _, ok := sample(got, "ryo_inbox_updates"); ok {
		t.Error("an inbox depth was made up without the database")
	}
	if v, _ := sample(got, `ryo_turns_total{outcome="answered"}`); v != 1 {
		t.Errorf("answered turns = %v; want 1, counted without the database", v)
	}
	if !strings.Contains(h.logs.String(), "the database did not tell the backlog") {
		t.Error("the failure was not logged")
	}
	p.restore()
	h.waitFor("the database back in the metrics", shows("ryo_database_up", 1))
}
