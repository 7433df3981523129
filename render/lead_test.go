package render_test

import (
	"math"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

// Lead is the start of the answer ending with its note: HTML Telegram
// accepts that shows exactly Plain, within the limit, its text the start of
// what the whole answer shows. Every golden input is tried at Telegram's
// limit and at a small one, with a note that needs escaping.
func TestLeadIsTheStartOfTheAnswerAndItsNote(t *testing.T) {
	const note = "… the whole answer is in <answer.md> & below"
	for _, in := range goldenInputs(t) {
		src := readFile(t, in)
		for _, limit := range []int{render.MaxUnits, 200} {
			checkLead(t, src, limit, note, render.Lead(src, limit, note))
		}
	}
}

// The lead of a long answer is as long as the first part would be, give or
// take the note: the person reads as much of it in the message as before.
func TestLeadOfALongAnswerFillsItsMessage(t *testing.T) {
	src := readFile(t, "testdata/long.md")
	lead := render.Lead(src, render.MaxUnits, "… the whole answer is in the file below")
	first := render.Markdown(src, render.MaxUnits)[0]
	if got, want := units(lead.Plain), units(first.Plain); got < want-100 || got > render.MaxUnits {
		t.Fatalf("lead has %d units, the first part %d; want about as many", got, want)
	}
}

func FuzzLead(f *testing.F) {
	f.Add("# Title\n\nSome **bold** text and `code`.\n\n```go\nfmt.Println(1)\n```", 100)
	f.Fuzz(func(t *testing.T, src string, n int) {
		limit := 64 + int(uint(n)%(render.MaxUnits-64+1))
		checkLead(t, src, limit, "(the rest is in the file)", render.Lead(src, limit, "(the rest is in the file)"))
	})
}

func checkLead(t *testing.T, src string, limit int, note string, lead render.Part) {
	t.Helper()
	display, entities, err := telegramtest.CheckMessageHTML(lead.HTML)
	switch {
	case err != nil:
		t.Fatalf("lead of %q at %d: %v\nHTML: %q", src, limit, err, lead.HTML)
	case display != lead.Plain:
		t.Fatalf("lead of %q at %d shows %q; Plain is %q", src, limit, display, lead.Plain)
	case units(display) > limit:
		t.Fatalf("lead of %q has %d units; limit %d", src, units(display), limit)
	case entities > render.MaxEntities:
		t.Fatalf("lead of %q has %d entities", src, entities)
	}
	text, ok := strings.CutSuffix(lead.Plain, "\n\n"+note)
	if !ok {
		t.Fatalf("lead %q does not end with its note", lead.Plain)
	}
	var whole strings.Builder
	for _, p := range render.Markdown(src, math.MaxInt) {
		whole.WriteString(p.Plain)
	}
	if !strings.HasPrefix(squeeze(whole.String()), squeeze(text)) {
		t.Fatalf("lead shows %q; the answer begins %q", text, whole.String()[:min(len(whole.String()), len(text)+20)])
	}
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }
