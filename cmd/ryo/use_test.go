package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// formatCommand reads the command part of a format sent to the model: the
// variants the command may take, each with its intents and slots schema.
type formatVariant struct {
	Type       string `json:"type"`
	Properties struct {
		Intent struct {
			Enum []string `json:"enum"`
		} `json:"intent"`
		Slots json.RawMessage `json:"slots"`
	} `json:"properties"`
}

func commandVariants(t *testing.T, format json.RawMessage) []formatVariant {
	t.Helper()
	var f struct {
		Properties struct {
			Command struct {
				AnyOf []formatVariant `json:"anyOf"`
			} `json:"command"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(format, &f); err != nil {
		t.Fatalf("format %s: %v", format, err)
	}
	return f.Properties.Command.AnyOf
}

// statusTexts are the texts the status messages of chat went through.
func (h *harness) statusTexts(chat telegramtest.Chat) string {
	var texts []string
	for _, method := range []string{"sendMessage", "editMessageText", "sendMessageDraft"} {
		for _, c := range h.tg.Calls(method) {
			if c.Params["chat_id"] == fmt.Sprint(chat.ID) {
				texts = append(texts, c.Params["text"])
			}
		}
	}
	return strings.Join(texts, "\n---\n")
}

// ⚡ Use next on statistics' card sends Alice's next message to statistics:
// the format the model gets for that round admits only a statistics command
// with statistics' own arguments, the status says so, and the message after
// is free again.
func TestUseNextForcesTheTool(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendText(dm, alice, "/tools")
	home := h.reply(dm, q.ID, "What I can do")
	shows := func(what string) telegramtest.Message {
		t.Helper()
		h.waitFor(what, func() bool { return strings.Contains(h.message(dm, home.ID).Text, what) })
		return h.message(dm, home.ID)
	}
	h.pressAnswer(h.press(dm, alice, home, "Math & Finance"))
	h.pressAnswer(h.press(dm, alice, shows("Math & Finance —"), "statistics"))
	card := shows("🔧 statistics — Math & Finance")
	// Bob cannot choose for Alice.
	if a := h.pressAnswer(h.tg.PressForged(dm.ID, bob, card.ID, card.Buttons()[0][0].Data)); !a.ShowAlert {
		t.Fatalf("Bob's ⚡ answered %+v", a)
	}
	if a := h.pressAnswer(h.press(dm, alice, card, "⚡ Use next")); !strings.Contains(a.Text, "statistics takes your next message") {
		t.Fatalf("⚡ Use next answered %+v", a)
	}
	shows("⚡ Your next message here goes to statistics")
	q = h.tg.SendText(dm, alice, "/use")
	h.reply(dm, q.ID, "⚡ Your next message here goes to statistics (for 10 more min)")

	hold := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Content: command("statistics", `{"values":[12,15,9,30,11]}`), Hold: hold},
		ollamatest.Reply{Content: envelope("The mean is 15.4 and the median 12; 30 stands out.")},
		ollamatest.Reply{Content: envelope("You're welcome!")})
	q = h.tg.SendText(dm, alice, "12 15 9 30 11")
	// While the model thinks, the status message says which tool it must use.
	h.waitFor("the status message", func() bool { return strings.Contains(h.statusTexts(dm), "⚡ using statistics") })
	close(hold)
	h.answer(dm, q.ID, "The mean is 15.4")
	reqs := h.llm.Requests()
	forced := commandVariants(t, reqs[0].Format)
	if len(forced) != 1 || fmt.Sprint(forced[0].Properties.Intent.Enum) != "[statistics]" || !strings.Contains(string(forced[0].Properties.Slots), `"values"`) {
		t.Fatalf("the forced round's command = %+v; want only statistics, with its arguments", forced)
	}
	if free := commandVariants(t, reqs[1].Format); len(free) != 2 || free[0].Type != "null" {
		t.Fatalf("the second round's command = %+v; want null or any tool", free)
	}
	result := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	for _, want := range []string{"__tool_result__ statistics", `"mean":15.4`, `"median":12`, `"outliers_iqr":{"lower_fence":5,"upper_fence":21,"count":1,"values":[30]}`} {
		if !strings.Contains(result, want) {
			t.Errorf("the statistics result %q lacks %q", result, want)
		}
	}
	if status := h.statusTexts(dm); !strings.Contains(status, "⚡ using statistics") {
		t.Errorf("the status never showed the chosen tool:\n%s\n%+v", status, h.tg.Calls("sendMessage"))
	}
	// It served that one message.
	q = h.tg.SendText(dm, alice, "thanks")
	h.answer(dm, q.ID, "You're welcome!")
	if free := commandVariants(t, h.llm.Requests()[2].Format); len(free) != 2 {
		t.Fatalf("the next message's command = %+v; want it free", free)
	}
	q = h.tg.SendText(dm, alice, "/use off")
	h.reply(dm, q.ID, "No tool was waiting")
}

// /use names a tool, takes it back with /use off, and refuses what is not
// a tool.
func TestUseCommand(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendText(dm, alice, "/use nonsense<b>\u202e\u200b")
	h.reply(dm, q.ID, "There is no such tool. /tools shows them all.")
	q = h.tg.SendText(dm, alice, "/use statistic")
	h.reply(dm, q.ID, "There is no tool “statistic”. /tools shows them all.")
	q = h.tg.SendText(dm, alice, "/use Statistics")
	h.reply(dm, q.ID, "⚡ Your next message here goes to statistics")
	// Only here: in the group, Alice's messages are free.
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hi team.")})
	g := h.tg.SendText(team, alice, "@"+botUser.Username+" hello")
	h.answer(team, g.ID, "Hi team.")
	if free := commandVariants(t, h.llm.Requests()[0].Format); len(free) != 2 {
		t.Fatalf("Alice's group message was forced: %+v", free)
	}
	q = h.tg.SendText(dm, alice, "/use off")
	h.reply(dm, q.ID, "OK — your next message goes to whichever tool fits")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello.")})
	q = h.tg.SendText(dm, alice, "hello")
	h.answer(dm, q.ID, "Hello.")
	if free := commandVariants(t, h.llm.Requests()[1].Format); len(free) != 2 {
		t.Fatalf("a dropped tool was forced: %+v", free)
	}
}

// A person whose tier lacks finance is never offered it, cannot choose it,
// and cannot get it run even when the model calls it; an admin's /tier
// changes that at once. In a group, the tools are the writer's.
func TestTiers(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.env["RYO_TIERS"] = "basic=calculate,Time & Units;full=*"
	h.env["RYO_DEFAULT_TIER"] = "basic"
	h.start()
	h.llm.Enqueue(ollamatest.Reply{Content: command("finance", `{"operation":"cagr","start_value":100,"end_value":200,"years":5}`)},
		ollamatest.Reply{Content: envelope("I can't do finance for you.")})
	q := h.tg.SendText(bobDM, bob, "what is the CAGR from 100 to 200 over 5 years?")
	h.answer(bobDM, q.ID, "I can't do finance for you.")
	reqs := h.llm.Requests()
	if system := reqs[0].Messages[0].Content; strings.Contains(system, "- finance:") || !strings.Contains(system, "- calculate:") {
		t.Fatalf("Bob's system prompt offers:\n%s", system)
	}
	if v := commandVariants(t, reqs[0].Format); len(v) != 2 || fmt.Sprint(v[1].Properties.Intent.Enum) != "[calculate current_time unit_convert]" {
		t.Fatalf("Bob's format offers %+v", v)
	}
	result := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(result, `"status":"denied"`) || !strings.Contains(result, "not_allowed") || strings.Contains(result, "cagr\":") {
		t.Fatalf("the model was shown %q; want finance denied", result)
	}
	// Bob sees finance locked in /tools, and cannot choose it.
	q = h.tg.SendText(bobDM, bob, "/tools")
	home := h.reply(bobDM, q.ID, "What I can do")
	h.pressAnswer(h.press(bobDM, bob, home, "Math & Finance"))
	h.waitFor("the kind's page", func() bool { return strings.Contains(h.message(bobDM, home.ID).Text, "• finance") })
	if page := h.message(bobDM, home.ID).Text; !strings.Contains(page, "finance — ") || !strings.Contains(page, "🔒 not in your tier") {
		t.Fatalf("Bob's Math & Finance page = %q", page)
	}
	h.pressAnswer(h.press(bobDM, bob, h.message(bobDM, home.ID), "finance"))
	h.waitFor("the card", func() bool { return strings.Contains(h.message(bobDM, home.ID).Text, "🔧 finance") })
	card := h.message(bobDM, home.ID)
	if !strings.Contains(card.Text, "🔒 It is not among the tools you may use.") || strings.Contains(fmt.Sprint(buttonTexts(card)), "Use next") {
		t.Fatalf("Bob's finance card = %q, buttons %v", card.Text, buttonTexts(card))
	}
	q = h.tg.SendText(bobDM, bob, "/use finance")
	h.reply(bobDM, q.ID, "🔒 finance is not among the tools you may use here.")

	// Admins see tiers and change Bob's.
	q = h.tg.SendText(dm, alice, "/tier")
	list := h.reply(dm, q.ID, "🎚 Tiers")
	if !strings.Contains(list.Text, "• basic (everyone not given another) — calculate, current_time, unit_convert") || !strings.Contains(list.Text, "• full — calculate, ") {
		t.Fatalf("/tier = %q", list.Text)
	}
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/tier %d gold", bob.ID))
	h.reply(dm, q.ID, "There is no tier “gold”. The tiers are: basic, full.")
	q = h.tg.SendText(dm, alice, fmt.Sprintf("/tier %d full", bob.ID))
	h.reply(dm, q.ID, "🎚 Bob is in the full tier now: calculate, ")
	q = h.tg.SendText(dm, alice, "/users")
	h.reply(dm, q.ID, "Bob · id "+fmt.Sprint(bob.ID)+" · user · tier full")

	// In the group, Bob's turn has finance; Alice's (basic) does not.
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Bob's answer.")}, ollamatest.Reply{Content: envelope("Alice's answer.")})
	g := h.tg.SendText(team, bob, "@"+botUser.Username+" hi")
	h.answer(team, g.ID, "Bob's answer.")
	g = h.tg.SendText(team, alice, "@"+botUser.Username+" hi")
	h.answer(team, g.ID, "Alice's answer.")
	reqs = h.llm.Requests()
	if v := commandVariants(t, reqs[2].Format); !strings.Contains(fmt.Sprint(v[1].Properties.Intent.Enum), "finance") {
		t.Fatalf("Bob's group turn offers %+v", v)
	}
	if v := commandVariants(t, reqs[3].Format); strings.Contains(fmt.Sprint(v[1].Properties.Intent.Enum), "finance") {
		t.Fatalf("Alice's group turn offers %+v", v)
	}
}

// A misspelt tier setting stops start-up with one line that names it,
// rather than giving people tools the operator meant to keep from them.
func TestTierTyposStopStartUp(t *testing.T) {
	for _, tt := range []struct{ tiers, def, want string }{
		{"guest=calculat;member=*", "", `RYO_TIERS: tier "guest": "calculat" is neither a tool nor a category`},
		{"guest=calculate,Time and Units", "", `RYO_TIERS: tier "guest": "Time and Units" is neither`},
		{"guest=calculate;member=*", "gest", `RYO_DEFAULT_TIER: default tier "gest" is not among the tiers defined (guest, member)`},
		{"guest=calculate", "Guest Tier", `RYO_DEFAULT_TIER: default tier "Guest Tier"`},
	} {
		h := newHarness(t)
		h.env["RYO_TIERS"], h.env["RYO_DEFAULT_TIER"] = tt.tiers, tt.def
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
			t.Errorf("RYO_TIERS=%q RYO_DEFAULT_TIER=%q: Run = %v; want one line starting %q", tt.tiers, tt.def, err, tt.want)
		}
	}
}

// In a forum, a chosen tool belongs to its person and its topic: /use
// addressed to the bot (with stray spaces and capitals) and ⚡ Use next on
// a card shown in another topic each serve their own topic, and another
// member's message there is free.
func TestUseInForumTopics(t *testing.T) {
	h := newHarness(t)
	h.start()
	stats := h.tg.CreateTopic(team, alice, "Numbers ⁦RTL⁩")
	fit := h.tg.CreateTopic(team, alice, "Fits")
	q := h.tg.SendText(team, alice, "/use@"+botUser.Username+"  STATISTICS ", telegramtest.InThread(stats.ThreadID))
	h.reply(team, q.ID, "⚡ Your next message here goes to statistics")
	q = h.tg.SendText(team, alice, "/tools", telegramtest.InThread(fit.ThreadID))
	home := h.reply(team, q.ID, "What I can do")
	on := func(what string) telegramtest.Message {
		t.Helper()
		h.waitFor(what, func() bool { return strings.Contains(h.message(team, home.ID).Text, what) })
		return h.message(team, home.ID)
	}
	h.pressAnswer(h.press(team, alice, home, "Math & Finance"))
	h.pressAnswer(h.press(team, alice, on("Math & Finance —"), "regression"))
	card := on("🔧 regression")
	if a := h.pressAnswer(h.press(team, bob, card, "⚡ Use next")); !a.ShowAlert {
		t.Fatalf("Bob's ⚡ on Alice's card answered %+v", a)
	}
	if a := h.pressAnswer(h.press(team, alice, card, "⚡ Use next")); !strings.Contains(a.Text, "regression takes your next message") {
		t.Fatalf("⚡ answered %+v", a)
	}
	mention := "@" + botUser.Username + " "
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Bob, free.")},
		ollamatest.Reply{Content: command("regression", `{"x":[1,2],"y":[2,4]}`)}, ollamatest.Reply{Content: envelope("Alice in fits.")},
		ollamatest.Reply{Content: command("statistics", `{"values":[12,15,9,30,11]}`)}, ollamatest.Reply{Content: envelope("Alice in numbers.")})
	for _, m := range []struct {
		who          telegramtest.User
		topic        int
		text, answer string
	}{{bob, stats.ThreadID, "hi", "Bob, free."}, {alice, fit.ThreadID, "1 2, 2 4", "Alice in fits."},
		{alice, stats.ThreadID, "12 15 9 30 11", "Alice in numbers."}} {
		q := h.tg.SendText(team, m.who, mention+m.text, telegramtest.InThread(m.topic))
		h.answer(team, q.ID, m.answer)
	}
	want := []string{"", "[regression]", "", "[statistics]", ""}
	for i, req := range h.llm.Requests() {
		v := commandVariants(t, req.Format)
		got := ""
		if len(v) == 1 {
			got = fmt.Sprint(v[0].Properties.Intent.Enum)
		}
		if got != want[i] {
			t.Errorf("request %d forced %q; want %q", i, got, want[i])
		}
	}
}

// A turn that took the chosen tool and was stopped before its answer was
// stored is still forced when it runs again at the next start, and the
// choice is spent once it has answered.
func TestForcedTurnResumedAfterRestart(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendText(dm, alice, "/use statistics")
	h.reply(dm, q.ID, "⚡ Your next message here goes to statistics")
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Hold: hold})
	q = h.tg.SendText(dm, alice, "12 15 9 30 11")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	h.stopMain()
	h.llm.Enqueue(ollamatest.Reply{Content: command("statistics", `{"values":[12,15,9,30,11]}`)},
		ollamatest.Reply{Content: envelope("The mean is 15.4.")}, ollamatest.Reply{Content: envelope("Hello.")})
	h.start()
	h.answer(dm, q.ID, "The mean is 15.4.")
	q = h.tg.SendText(dm, alice, "hello")
	h.answer(dm, q.ID, "Hello.")
	reqs := h.llm.Requests()
	for i, want := range []int{1, 1, 2, 2} { // before the stop, after it, then the free rounds
		if got := len(commandVariants(t, reqs[i].Format)); got != want {
			t.Errorf("request %d's command has %d variants; want %d (1: forced, 2: free)", i, got, want)
		}
	}
	q = h.tg.SendText(dm, alice, "/use")
	h.reply(dm, q.ID, "Usage: /use <tool>")
}

// An action held for a yes runs only if its requester may still use its
// tool when it is confirmed: an admin who lowered Alice's tier meanwhile,
// and then confirms her action for her (RYO_ADMINS_DECIDE=on), does not
// get it run with the admin's own tools, and the conversation that goes on
// offers Alice's tools only.
func TestHeldActionAfterTheTierWasLowered(t *testing.T) {
	h, notes := confirmHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(bob.ID)
	h.env["RYO_ADMINS_DECIDE"] = "on"
	h.env["RYO_TIERS"] = "basic=calculate;full=*"
	h.env["RYO_DEFAULT_TIER"] = "basic"
	h.start()
	h.tg.SendText(team, alice, "hi all") // Alice is known before Bob names her
	q := h.tg.SendText(bobDM, bob, fmt.Sprintf("/tier %d full", alice.ID))
	h.reply(bobDM, q.ID, "is in the full tier now")
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("minutes")}, ollamatest.Reply{Content: envelope("I could not delete it.")})
	h.tg.SendText(team, alice, "@ryo_test_bot delete the minutes note")
	p := h.prompt(team)
	q = h.tg.SendText(bobDM, bob, fmt.Sprintf("/tier %d basic", alice.ID))
	h.reply(bobDM, q.ID, "is in the basic tier now")
	h.pressAnswer(h.press(team, bob, p, "✅"))
	h.answer(team, p.ID, "I could not delete it.")
	h.settled(team, p.ID, "but it did not work")
	if got := notes.runs(); len(got) != 0 {
		t.Fatalf("deleted %v; Alice may no longer use delete_note", got)
	}
	reqs := h.llm.Requests()
	last := reqs[len(reqs)-1]
	if result := last.Messages[len(last.Messages)-1].Content; !strings.Contains(result, `"status":"denied"`) {
		t.Errorf("the model was shown %q; want delete_note denied", result)
	}
	if v := commandVariants(t, last.Format); len(v) != 2 || fmt.Sprint(v[1].Properties.Intent.Enum) != "[calculate]" {
		t.Errorf("the conversation after the yes offers %+v; want Alice's calculate only", v)
	}
}

// Someone an admin kept from some tools cannot shed that by asking to be
// forgotten: after /forgetme they are a new person in the same tier, and a
// tool they then choose with /use is still refused.
func TestForgetMeKeepsTheTier(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(bob.ID)
	h.env["RYO_TIERS"] = "guest=calculate" // everyone else: every tool
	h.start()
	h.tg.SendText(dm, alice, "/start")
	q := h.tg.SendText(bobDM, bob, fmt.Sprintf("/tier %d guest", alice.ID))
	h.reply(bobDM, q.ID, "is in the guest tier now: calculate.")
	q = h.tg.SendText(dm, alice, "/forgetme")
	p := h.promptFor(dm, q.ID)
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.settled(dm, p.ID, "— done.")
	q = h.tg.SendText(dm, alice, "/use finance")
	h.reply(dm, q.ID, "🔒 finance is not among the tools you may use here.")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello again.")})
	q = h.tg.SendText(dm, alice, "hello")
	h.answer(dm, q.ID, "Hello again.")
	if v := commandVariants(t, h.llm.Requests()[0].Format); len(v) != 2 || fmt.Sprint(v[1].Properties.Intent.Enum) != "[calculate]" {
		t.Fatalf("after /forgetme Alice is offered %+v; want calculate only", v)
	}
}

// A tool chosen before an admin lowered the person's tier is not shown as
// waiting: their next message will not go to it.
func TestUseAfterTheTierWasLowered(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(bob.ID)
	h.env["RYO_TIERS"] = "guest=calculate"
	h.start()
	q := h.tg.SendText(dm, alice, "/use finance")
	h.reply(dm, q.ID, "⚡ Your next message here goes to finance")
	q = h.tg.SendText(bobDM, bob, fmt.Sprintf("/tier %d guest", alice.ID))
	h.reply(bobDM, q.ID, "is in the guest tier now")
	q = h.tg.SendText(dm, alice, "/use")
	if r := h.reply(dm, q.ID, "/use"); strings.Contains(r.Text, "goes to finance") {
		t.Fatalf("/use answered %q; finance is no longer Alice's to use", r.Text)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello.")})
	q = h.tg.SendText(dm, alice, "hello")
	h.answer(dm, q.ID, "Hello.")
	if v := commandVariants(t, h.llm.Requests()[0].Format); len(v) != 2 {
		t.Fatalf("Alice's message was forced: %+v", v)
	}
}

// /use sent while a turn of the same person runs there chooses the tool
// for the message after, not for the turn already running.
func TestUseWhileATurnRuns(t *testing.T) {
	h := newHarness(t)
	h.start()
	hold := make(chan struct{})
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("First."), Hold: hold},
		ollamatest.Reply{Content: command("statistics", `{"values":[1,2,3]}`)}, ollamatest.Reply{Content: envelope("The mean is 2.")})
	first := h.tg.SendText(dm, alice, "something slow")
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	use := h.tg.SendText(dm, alice, "/use statistics")
	close(hold)
	h.answer(dm, first.ID, "First.")
	h.reply(dm, use.ID, "⚡ Your next message here goes to statistics")
	q := h.tg.SendText(dm, alice, "1 2 3")
	h.answer(dm, q.ID, "The mean is 2.")
	reqs := h.llm.Requests()
	if len(commandVariants(t, reqs[0].Format)) != 2 || len(commandVariants(t, reqs[1].Format)) != 1 {
		t.Fatalf("formats: %d then %d command variants; want the running turn free, the next one forced",
			len(commandVariants(t, reqs[0].Format)), len(commandVariants(t, reqs[1].Format)))
	}
}
