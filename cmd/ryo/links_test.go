package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// A model that writes links to people and to look-alike hosts mentions
// nobody in the group, and every link it shows either goes where its text
// says or shows where it goes.
func TestAnswerLinksMentionNobodyAndShowTheirHost(t *testing.T) {
	h := newHarness(t)
	answer := fmt.Sprintf("Ask [Bob](tg://user?id=%d) or [his twin](TG://USER?ID=%d) or [him](tg:user?id=%d). "+
		"Log in at [bank.com](https://evil.example/login), [paypal.com](https://paypaI.com) or "+
		"[paypal.com](https://pаypal.com), [your bank](https://bank.com@evil.example), or see [the docs](https://go.dev/doc/).",
		bob.ID, bob.ID, bob.ID)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope(answer)})
	h.start()
	q := h.tg.SendText(team, alice, "@ryo_test_bot who can help?")
	msgs := h.answer(team, q.ID, "the docs")
	m := msgs[len(msgs)-1]
	text, _ := display(t, m)
	var links []string // "text → URL"
	for _, e := range m.Entities() {
		switch e.Type {
		case "text_mention", "mention":
			t.Fatalf("the answer mentions %d: %q", e.UserID, text)
		case "text_link":
			links = append(links, e.In(text)+" → "+e.URL)
		}
	}
	want := []string{"bank.com → https://evil.example/login", "paypal.com → https://paypaI.com",
		"paypal.com → https://pаypal.com", "the docs → https://go.dev/doc/"}
	if !slices.Equal(links, want) {
		t.Fatalf("links %q; want %q", links, want)
	}
	for _, shown := range []string{
		"Ask Bob (tg://user?id=", "or him (tg:user?id=",
		"bank.com\u00a0(→\u00a0evil.example)", "paypal.com\u00a0(→\u00a0paypai.com)", "paypal.com\u00a0(→\u00a0xn--pypal-4ve.com)",
		"your bank (https://bank.com@evil.example)", "see the docs.",
	} {
		if !strings.Contains(text, shown) {
			t.Errorf("the answer shows %q; want %q in it", text, shown)
		}
	}
}
