package bot

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

func TestPressData(t *testing.T) {
	id := newActionID()
	if len(id) != 16 || strings.ContainsAny(id, ": ") || newActionID() == id {
		t.Fatalf("newActionID = %q", id)
	}
	for _, yes := range []bool{true, false} {
		data := pressData(id, yes)
		if got, gotYes, ok := parsePress(data); !ok || got != id || gotYes != yes || len(data) > 64 {
			t.Fatalf("parsePress(%q) = %q, %v, %v", data, got, gotYes, ok)
		}
	}
	for _, bad := range []string{"", "act:", "act::y", "act:x", "act:x:maybe", "act:a:b:y", "other:x:y", "act:x y:n"} {
		if _, _, ok := parsePress(bad); ok {
			t.Errorf("parsePress(%q) accepted", bad)
		}
	}
}

// Every state of a prompt is valid Telegram HTML within one message, even
// with the longest description, arguments and names, full of characters
// HTML must escape.
func TestPromptIsValidInEveryState(t *testing.T) {
	r := toolbus.NewRegistry()
	desc := "Deletes " + strings.Repeat("<&> ", 48)
	err := r.Register(toolbus.Spec{Name: "wipe", Description: desc[:200], Effect: toolbus.Destructive, Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Wipe x.", Arguments: json.RawMessage(`{"x":"x"}`)}},
		Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`),
		Tool:   toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	b := &Bot{cfg: Config{Tools: r, Location: time.UTC, Clock: ryo.SystemClock{}}}
	name := strings.Repeat("<Ж&>", 16)
	for _, size := range []int{10, maxInlineArgs - 20, maxInlineArgs + 1} {
		args := json.RawMessage(`{"x":"` + strings.Repeat("<&>", size/3) + `"}`)
		for _, state := range []ryo.ActionState{ryo.ActionPending, ryo.ActionConfirmed, ryo.ActionExecuted, ryo.ActionCancelled, ryo.ActionExpired} {
			for _, chat := range []int64{7123456789, -1001234567890} {
				a := ryo.Action{ID: "id", Place: ryo.Place{ChatID: chat}, Tool: "wipe", Args: args, Reason: toolbus.HoldDestructive,
					State: state, RequesterName: name, DeciderName: name, ExpiresAt: time.Now(), DecidedAt: time.Now(),
					Summary: strings.Repeat("<Forget &>", 300)}
				p, file := b.prompt(lang.Printer{}, a)
				shown, _, err := telegramtest.CheckMessageHTML(p.HTML)
				if err != nil || shown != p.Plain || render.Units(p.Plain) > render.MaxUnits {
					t.Fatalf("size %d, %s: prompt refused (%v) or too long (%d units)", size, state, err, render.Units(p.Plain))
				}
				inline := strings.Contains(p.Plain, strings.Repeat("<&>", size/3))
				if inline == (file != nil) || file != nil && !json.Valid(file) {
					t.Fatalf("size %d: arguments inline %v, file %d bytes; want exactly one, whole", size, inline, len(file))
				}
			}
		}
	}
}

// Whether a press may decide its action, from what is known of it.
func TestJudgePress(t *testing.T) {
	for _, c := range []struct {
		f    pressFacts
		want pressVerdict
	}{
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: true}, pressDecides},
		{pressFacts{found: false, sameChat: true, mayUse: true, mayDecide: true}, pressStale},
		{pressFacts{found: true, sameChat: false, mayUse: true, mayDecide: true}, pressStale}, // forged from another chat
		{pressFacts{found: true, sameChat: true, mayUse: false, mayDecide: true}, pressMayNotUse},
		{pressFacts{found: true, sameChat: true, mayUse: false, mayDecide: false}, pressMayNotUse},
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: false}, pressNotTheirs},
		{pressFacts{}, pressStale},
		{pressFacts{found: true, own: true, sameChat: true}, pressStands}, // its own decision, whoever the presser is now
		{pressFacts{found: true, own: true, sameChat: false}, pressStale},
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: true, forAdmins: true, admin: true}, pressDecides},
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: true, forAdmins: true}, pressNotAdmin}, // asked for as an admin, since demoted
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: false, forAdmins: true}, pressNotAdmin},
		{pressFacts{found: true, own: true, sameChat: true, forAdmins: true}, pressStands}, // decided as an admin, then demoted: it was announced
		{pressFacts{found: true, sameChat: true, mayUse: true, mayDecide: true, admin: true}, pressDecides},
	} {
		if got := judgePress(c.f); got != c.want {
			t.Errorf("judgePress(%+v) = %d; want %d", c.f, got, c.want)
		}
	}
}

// What a decision came to, for the press that asked for it.
func TestOutcomeOf(t *testing.T) {
	const press, other = int64(987654400), int64(987654401)
	for _, c := range []struct {
		state   ryo.ActionState
		by      int64 // the press that decided it
		decided bool  // decided by this call
		want    pressOutcome
	}{
		{ryo.ActionConfirmed, press, true, pressConfirms},
		{ryo.ActionCancelled, press, true, pressCancels},
		{ryo.ActionConfirmed, press, false, pressConfirms}, // run again after a crash: its own decision
		{ryo.ActionExecuted, press, false, pressConfirms},  // and the tool ran already
		{ryo.ActionCancelled, press, false, pressCancels},  // its own no, run again
		{ryo.ActionConfirmed, other, false, pressAlready},  // someone else's yes came first
		{ryo.ActionCancelled, other, false, pressAlready},  // someone else's no
		{ryo.ActionExpired, 0, false, pressTooLate},        // nobody decided in time
		{ryo.ActionPending, 0, false, pressAlready},        // cannot happen: Decide moves it on
	} {
		a := ryo.Action{State: c.state, DecidedUpdate: c.by}
		if got := outcomeOf(a, c.decided, press); got != c.want {
			t.Errorf("outcomeOf(%s by %d, decided %v) = %d; want %d", c.state, c.by, c.decided, got, c.want)
		}
	}
}
