package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// gadget is a test tool of a kind of its own.
func gadget(n int) toolbus.Spec {
	return toolbus.Spec{Name: fmt.Sprintf("gadget_%02d", n), Description: fmt.Sprintf("Turns gadget %d on or off. Nothing else.", n),
		Category: "Gadgets", Effect: toolbus.Mutating,
		Examples: []toolbus.Example{{Question: "Switch it on.", Arguments: json.RawMessage(`{"on":true,"level":3}`)}},
		Schema: json.RawMessage(`{"type":"object","properties":{"on":{"type":"boolean","description":"On or off."},
			"level":{"type":"integer","minimum":1,"maximum":5},"mode":{"type":"string","enum":["eco","boost"]}},
			"required":["on"],"additionalProperties":false}`),
		Tool: toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return "ok", nil })}
}

// buttonTexts is every button of m, row by row.
func buttonTexts(m telegramtest.Message) [][]string {
	var rows [][]string
	for _, row := range m.Buttons() {
		var r []string
		for _, b := range row {
			r = append(r, b.Text)
		}
		rows = append(rows, r)
	}
	return rows
}

// /tools shows the kinds of tools, each kind its tools a page at a time,
// each tool a card with its arguments in words and an example; only the
// asker turns the pages.
func TestToolsCatalog(t *testing.T) {
	h := newHarness(t)
	for i := 1; i <= 12; i++ {
		h.tools = append(h.tools, gadget(i))
	}
	h.start()
	q := h.tg.SendText(dm, alice, "/tools")
	home := h.reply(dm, q.ID, "What I can do")
	want := [][]string{{"Math & Finance · 6"}, {"Charts · 1"}, {"Web · 1"}, {"Time & Units · 2"}, {"Memory · 4"}, {"Knowledge · 1"}, {"Gadgets · 12"}}
	if got := buttonTexts(home); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("kinds = %v; want %v", got, want)
	}
	for _, b := range home.Buttons() {
		if len(b[0].Data) > 64 {
			t.Fatalf("button data %q is past Telegram's 64 bytes", b[0].Data)
		}
	}
	shows := func(what string) telegramtest.Message {
		t.Helper()
		h.waitFor(what, func() bool { return strings.Contains(h.message(dm, home.ID).Text, what) })
		return h.message(dm, home.ID)
	}

	h.pressAnswer(h.press(dm, alice, home, "Time & Units"))
	kind := shows("Time & Units — 2 tools")
	if !strings.Contains(kind.Text, "• unit_convert — Convert a value from one unit to another") {
		t.Fatalf("the kind's page = %q", kind.Text)
	}
	h.pressAnswer(h.press(dm, alice, kind, "unit_convert"))
	card := shows("🔧 unit_convert — Time & Units")
	for _, line := range []string{
		"• from (text, up to 40 characters): The unit of value",
		"• value (a number): The amount to convert",
		"For example: “How many miles is a 10 km run?”\n→ value: 10; from: km; to: mi",
		"It changes nothing.",
	} {
		if !strings.Contains(card.Text, line) {
			t.Errorf("the card lacks %q:\n%s", line, card.Text)
		}
	}

	// Someone else's press on Alice's catalog is refused.
	other := h.tg.PressForged(dm.ID, bob, home.ID, card.Buttons()[0][0].Data)
	if a := h.pressAnswer(other); !a.ShowAlert || !strings.Contains(a.Text, "Only the person who asked") {
		t.Fatalf("Bob's press answered %+v", a)
	}

	h.pressAnswer(h.press(dm, alice, card, "⬅ Time & Units"))
	h.pressAnswer(h.press(dm, alice, shows("Time & Units — 2 tools"), "⬅ All kinds"))
	h.pressAnswer(h.press(dm, alice, shows("What I can do"), "Gadgets"))
	gadgets := shows("Gadgets — 12 tools, page 1 of 2")
	if strings.Contains(gadgets.Text, "gadget_11") {
		t.Fatalf("page 1 shows page 2's tools: %q", gadgets.Text)
	}
	h.pressAnswer(h.press(dm, alice, gadgets, "Next ▶"))
	page2 := shows("page 2 of 2")
	h.pressAnswer(h.press(dm, alice, page2, "gadget_12"))
	card = shows("🔧 gadget_12 — Gadgets")
	for _, line := range []string{
		"• on (yes or no): On or off.",
		"• level (a whole number, optional, from 1 to 5)",
		"• mode (text, optional, one of eco, boost)",
		"→ on: true; level: 3",
		"It changes something that can be changed back.",
	} {
		if !strings.Contains(card.Text, line) {
			t.Errorf("the card lacks %q:\n%s", line, card.Text)
		}
	}

	// In a group, /tools is shown there, and turned only by its asker.
	q = h.tg.SendText(team, bob, "/tools")
	list := h.reply(team, q.ID, "What I can do")
	other = h.tg.PressForged(team.ID, alice, list.ID, list.Buttons()[0][0].Data)
	if a := h.pressAnswer(other); !a.ShowAlert {
		t.Fatalf("Alice's press on Bob's catalog answered %+v", a)
	}
}
