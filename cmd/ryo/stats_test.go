package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// carol's name is written to turn a line around and to look like markup.
var carol = telegramtest.NewUser("\u202eCarol <b>&amp;", "")

// used stores, as if answered at, turns of person in chat: ryo's own
// store, its clock set to at for the writing.
func used(t *testing.T, h *harness, at time.Time, chat int64, person telegramtest.User, model string, n int, tools ...string) {
	t.Helper()
	db := h.db()
	old := db.Clock
	db.Clock = clocktest.New(at)
	defer func() { db.Clock = old }()
	if _, err := db.SaveUser(bg(t), ryo.User{ID: person.ID, FirstName: person.FirstName, Username: person.Username}, false); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		update := at.UnixNano()/1000 + int64(i) + person.ID%1000
		if err := db.RecordUsage(bg(t), memory.Usage{UpdateID: update, ChatID: chat, UserID: person.ID, Model: model,
			PromptTokens: 1200, ReplyTokens: 80, ModelTime: 2 * time.Second, Tools: tools}); err != nil {
			t.Fatal(err)
		}
	}
}

// reply waits for the bot's reply to message id and returns it.
func reply(h *harness, chat telegramtest.Chat, id int, want string) telegramtest.Message {
	h.t.Helper()
	for _, m := range h.answer(chat, id, want) {
		if m.ReplyTo == id && strings.Contains(m.Text, want) {
			return m
		}
	}
	return telegramtest.Message{}
}

// An admin's /stats in a group shows the group's usage with a chart;
// a member's shows only their own, without one.
func TestStatsShowsTheGroupToItsAdminsAndEachPersonTheirOwn(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	now := time.Now()
	used(t, h, now.Add(-3*24*time.Hour), team.ID, bob, "llama3.2", 4, "calculate")
	used(t, h, now.Add(-time.Minute), team.ID, carol, "qwen3:8b", 2, "create_chart", "calculate")
	used(t, h, now.Add(-time.Minute), bobDM.ID, bob, "llama3.2", 5) // another chat: not the group's

	q := h.tg.SendText(team, alice, "/stats")
	text := reply(h, team, q.ID, "Usage in this group")
	for _, want := range []string{"30 days: 6 answers · 2 people · 7,200 tokens in · 480 out", "Busiest people, 30 days:",
		"1. \u2068Bob\u2069 — 4 answers", "2. \u2068Carol <b>&amp;\u2069 — 2 answers", "• calculate — 6 calls", "• llama3.2 — 4 answers"} {
		if !strings.Contains(text.Text, want) {
			t.Errorf("missing %q in\n%s", want, text.Text)
		}
	}
	h.waitFor("the chart", func() bool { return len(photos(h, team)) == 1 })
	chart := photos(h, team)[0]
	img, err := png.Decode(bytes.NewReader(chart.Photo.Data))
	if err != nil {
		t.Fatalf("the chart is no PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 || len(chart.Photo.Data) < 5000 {
		t.Errorf("the chart is %v, %d bytes", b, len(chart.Photo.Data))
	}
	if chart.ReplyTo != q.ID || !strings.Contains(chart.Text, "Answers per day") {
		t.Errorf("chart caption %q replying to %d", chart.Text, chart.ReplyTo)
	}

	q = h.tg.SendText(team, bob, "/stats")
	own := reply(h, team, q.ID, "Your usage in this group")
	if !strings.Contains(own.Text, "30 days: 4 answers · 4,800 tokens in") || strings.Contains(own.Text, "Carol") || strings.Contains(own.Text, "Busiest people") {
		t.Errorf("Bob's own /stats:\n%s", own.Text)
	}
	q = h.tg.SendText(bobDM, bob, "/stats")
	if everywhere := reply(h, bobDM, q.ID, "Your usage"); !strings.Contains(everywhere.Text, "30 days: 9 answers") {
		t.Errorf("Bob's own everywhere:\n%s", everywhere.Text)
	}
	q = h.tg.SendText(dm, alice, "/stats all")
	if all := reply(h, dm, q.ID, "Usage in every chat"); !strings.Contains(all.Text, "30 days: 11 answers · 2 people") {
		t.Errorf("an admin's /stats all:\n%s", all.Text)
	}
	if n := len(photos(h, team)); n != 1 {
		t.Errorf("%d charts in the group; want the admin's one", n)
	}
	if len(h.llm.Requests()) != 0 {
		t.Error("/stats asked the model")
	}
}

// quotaDay is the first of three turns a person had in the last day, to
// the minute, and when they can ask again with a quota of 3/day.
func quotaDay() (first, again time.Time) {
	first = time.Now().Add(-20 * time.Hour).Truncate(time.Minute)
	return first, first.Add(24 * time.Hour)
}

// A person past their daily quota is told, once, when they can ask again;
// their message is kept and the model is not asked.
func TestOverTheDailyQuotaThePersonIsToldWhen(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_QUOTA"] = "10/hour, 3/day"
	h.env["RYO_TIMEZONE"] = "UTC"
	h.start()
	first, again := quotaDay()
	used(t, h, first, team.ID, bob, "llama3.2", 1)
	used(t, h, time.Now().Add(-2*time.Hour), bobDM.ID, bob, "llama3.2", 2)

	q := h.tg.SendText(bobDM, bob, "what is 6*7")
	when := "at " + again.UTC().Format("15:04") + " UTC"
	if again.UTC().Day() != time.Now().UTC().Day() {
		when = "tomorrow " + when
	}
	polite := reply(h, bobDM, q.ID, "You've used today's 3 answers")
	if !strings.Contains(polite.Text, "you can ask again "+when) {
		t.Errorf("the quota message %q; want it to say %q", polite.Text, when)
	}
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: bobDM.ID}) == memory.StateDone })
	if n := len(h.llm.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	stored, err := h.db().History(bg(t), ryo.Place{ChatID: bobDM.ID}, 10)
	if err != nil || len(stored) != 1 || stored[0].Text != "what is 6*7" {
		t.Errorf("stored %+v, %v; want the message kept", stored, err)
	}
	if got, _ := sample(scrape(t, h), `ryo_turns_total{outcome="over_quota"}`); got != 1 {
		t.Errorf("over_quota turns counted %v; want 1", got)
	}
}

// An admin gives one person a quota of their own; another goes on.
func TestAQuotaAnAdminGaveOnePerson(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_DRAFTS"] = "off"
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("42")})
	h.start()
	used(t, h, time.Now().Add(-10*time.Minute), bobDM.ID, bob, "llama3.2", 2)

	q := h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d 2/hour", bob.ID))
	reply(h, dm, q.ID, "may ask 2/hour now")
	q = h.tg.SendText(bobDM, bob, "hello?")
	reply(h, bobDM, q.ID, "You've used this hour's 2 answers")
	q = h.tg.SendText(carolDM(), carol, "what is 6*7")
	h.answer(carolDM(), q.ID, "42")
	if n := len(h.llm.Requests()); n != 1 {
		t.Errorf("the model was asked %d times; want once, for Carol", n)
	}

	q = h.tg.SendText(bobDM, bob, "/stats")
	reply(h, bobDM, q.ID, "⏳ Your quota, counted back from now: used 2 of 2 answers an hour.")
	// An admin asks what one person may ask: their quota, whose it is, and
	// how much of it they used.
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d", bob.ID))
	m := reply(h, dm, q.ID, "may ask 2/hour: their own quota, set by")
	for _, want := range []string{"Bob", "Alice", "used 2 of 2 answers an hour"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("/quota for one person says %q; want it to name %q", m.Text, want)
		}
	}
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d default", bob.ID))
	reply(h, dm, q.ID, "has their tier's quota again: none")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d", bob.ID))
	reply(h, dm, q.ID, "may ask without limit: their tier's quota (default) is none")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/quota %d", alice.ID))
	reply(h, dm, q.ID, "is an admin: admins are not held to quotas")
	q = h.tg.SendText(dm, alice, "/quota")
	reply(h, dm, q.ID, "• default — none")
}

func carolDM() telegramtest.Chat { return telegramtest.PrivateChat(carol) }

// A quota for a tier that does not exist, or a limit ryo cannot read,
// stops start-up with one line that names RYO_QUOTA.
func TestQuotaTyposStopStartUp(t *testing.T) {
	for _, tt := range []struct{ tiers, quota, want string }{
		{"guest=calculate;member=*", "gust=5/day", `RYO_QUOTA: "gust" is not a tier (tiers: default, guest, member)`},
		{"", "50/week", `RYO_QUOTA: "50/week": write a limit as 50/day, 10/hour or 20000 tokens/day`},
		{"", "default=0/day", `RYO_QUOTA: "0/day": write a limit`},
	} {
		h := newHarness(t)
		h.env["RYO_TIERS"], h.env["RYO_QUOTA"] = tt.tiers, tt.quota
		cfg, err := LoadConfig(env(h.env), true)
		if err != nil {
			t.Fatal(err)
		}
		m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		ctx, cancel := context.WithCancel(context.Background())
		ended := make(chan error, 1)
		go func() { ended <- m.Run(ctx) }()
		select {
		case err = <-ended:
		case <-m.Ready(): // started: stop it, and report it below
			cancel()
			err = <-ended
		}
		cancel()
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("RYO_QUOTA=%q: Run = %v; want one line starting %q", tt.quota, err, tt.want)
		}
	}
}

// A turn answered in a group is counted as it happened: its asker, the
// model, the tokens Ollama reported and the tool that ran; a turn run
// again is not counted twice.
func TestAnAnsweredTurnIsCounted(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Enqueue(ollamatest.Reply{Content: command("calculate", `{"expression":"6*7"}`), PromptEvalCount: 812, EvalCount: 23},
		ollamatest.Reply{Content: envelope("6 × 7 = 42"), PromptEvalCount: 905, EvalCount: 11})
	h.start()
	q := h.tg.SendText(team, bob, "@ryo_test_bot what is 6*7")
	h.answer(team, q.ID, "42")
	h.waitFor("the turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: team.ID}) == memory.StateDone })

	q = h.tg.SendText(team, alice, "/stats")
	text := reply(h, team, q.ID, "Usage in this group")
	for _, want := range []string{"Today: 1 answer · 1 person · 1,717 tokens in · 34 out", "1. \u2068Bob\u2069 — 1 answer, 1,751 tokens",
		"• llama3.2 — 1 answer", "• calculate — 1 call"} {
		if !strings.Contains(text.Text, want) {
			t.Errorf("missing %q in\n%s", want, text.Text)
		}
	}
}
