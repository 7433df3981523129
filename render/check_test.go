package render_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

// checkParts checks what Markdown(src, limit) returned against the fake
// Telegram: every part's HTML parses, shows exactly its Plain, is not
// blank, fits in limit and has no more entities than Telegram shows;
// several parts carry their "(k/n)" lines; and together the parts show
// the whole answer, nothing lost or repeated.
func checkParts(t *testing.T, src string, limit int, parts []render.Part) {
	t.Helper()
	if len(parts) == 0 {
		t.Fatalf("Markdown(%q, %d) returned no parts", src, limit)
	}
	var joined strings.Builder
	for k, p := range parts {
		display, entities, err := telegramtest.CheckMessageHTML(p.HTML)
		switch units := len(utf16.Encode([]rune(display))); {
		case err != nil:
			t.Fatalf("part %d/%d: %v\nHTML: %q", k+1, len(parts), err, p.HTML)
		case display != p.Plain:
			t.Fatalf("part %d/%d shows %q; Plain is %q", k+1, len(parts), display, p.Plain)
		case units > max(limit, 16):
			t.Fatalf("part %d/%d has %d units; limit %d\n%q", k+1, len(parts), units, limit, p.Plain)
		case entities > render.MaxEntities:
			t.Fatalf("part %d/%d has %d entities; Telegram shows %d", k+1, len(parts), entities, render.MaxEntities)
		}
		joined.WriteString(withoutMarker(t, p.Plain, k+1, len(parts)))
		joined.WriteString("\n")
	}
	var whole strings.Builder // parts without a limit on units: split only by entities
	all := render.Markdown(src, math.MaxInt)
	for k, p := range all {
		whole.WriteString(withoutMarker(t, p.Plain, k+1, len(all)))
	}
	if got, want := squeeze(joined.String()), squeeze(whole.String()); got != want {
		t.Fatalf("parts together show\n%q\nthe whole answer shows\n%q", got, want)
	}
}

// withoutMarker checks and removes part k of n's "(k/n)" line.
func withoutMarker(t *testing.T, plain string, k, n int) string {
	t.Helper()
	if n == 1 {
		return plain
	}
	marker := fmt.Sprintf("\n\n(%d/%d)", k, n)
	text, ok := strings.CutSuffix(plain, marker)
	if !ok {
		t.Fatalf("part %d/%d does not end with %q: %q", k, n, marker, plain)
	}
	return text
}

// squeeze drops all whitespace: cuts remove the line break or space they
// fall on.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
