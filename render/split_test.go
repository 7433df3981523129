package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// TestSplitPrefersBetterCuts pins where Markdown cuts a long answer, one
// case per kind of cut, best first: between blocks, at a blank line inside
// a block, at a line break, at a space outside formatting, at a space
// inside it, between characters, and never inside one visible character.
func TestSplitPrefersBetterCuts(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		limit int
		want  []string // each part's Plain
	}{
		{
			name:  "between blocks",
			src:   "First paragraph here.\n\nSecond paragraph here.",
			limit: 40,
			want:  []string{"First paragraph here.\n\n(1/2)", "Second paragraph here.\n\n(2/2)"},
		},
		{
			name:  "not after a heading",
			src:   "Intro words here.\n\n# Heading\n\nBody text follows.",
			limit: 40,
			want:  []string{"Intro words here.\n\n(1/2)", "Heading\n\nBody text follows.\n\n(2/2)"},
		},
		{
			name:  "before a code block that fits",
			src:   "Short intro line.\n\n```\nalpha beta\ngamma delta\nepsilon zeta\n```",
			limit: 45,
			want:  []string{"Short intro line.\n\n(1/2)", "alpha beta\ngamma delta\nepsilon zeta\n\n(2/2)"},
		},
		{
			name:  "blank line in code",
			src:   "```\nfunc alpha() {}\n\nfunc b() {}\nfunc c() {}\n```",
			limit: 32,
			want:  []string{"func alpha() {}\n\n(1/2)", "func b() {}\nfunc c() {}\n\n(2/2)"},
		},
		{
			name:  "line break",
			src:   "one two three\nfour five six\nseven eight nine",
			limit: 40,
			want:  []string{"one two three\nfour five six\n\n(1/2)", "seven eight nine\n\n(2/2)"},
		},
		{
			name:  "space outside formatting",
			src:   "plain words then **bold words that go on**",
			limit: 30,
			want:  []string{"plain words then\n\n(1/2)", "bold words that go on\n\n(2/2)"},
		},
		{
			name:  "space inside formatting",
			src:   "**every word here is bold and long**",
			limit: 30,
			want:  []string{"every word here is bold\n\n(1/2)", "and long\n\n(2/2)"},
		},
		{
			name:  "between characters",
			src:   "abcdefghijklmnopqrstuvwxyz0123456789",
			limit: 30,
			want:  []string{"abcdefghijklmnopqrstuvw\n\n(1/2)", "xyz0123456789\n\n(2/2)"},
		},
		{
			name:  "not inside a flag",
			src:   "🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵",
			limit: 30,
			want:  []string{"🇯🇵🇯🇵🇯🇵🇯🇵🇯🇵\n\n(1/2)", "🇯🇵🇯🇵🇯🇵\n\n(2/2)"},
		},
		{
			name:  "not inside a family",
			src:   "x👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧",
			limit: 22,
			want:  []string{"x👨‍👩‍👧\n\n(1/3)", "👨‍👩‍👧\n\n(2/3)", "👨‍👩‍👧\n\n(3/3)"},
		},
		{
			name:  "inside a character only as the last resort",
			src:   "👨‍👩‍👧‍👦👨‍👩‍👧‍👦",
			limit: 16,
			want:  []string{"👨‍👩‍👧‍\n\n(1/4)", "👦\n\n(2/4)", "👨‍👩‍👧‍\n\n(3/4)", "👦\n\n(4/4)"},
		},
		{
			name:  "fits",
			src:   "Short **answer**.",
			limit: 17,
			want:  []string{"Short answer."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := render.Markdown(tt.src, tt.limit)
			checkParts(t, tt.src, tt.limit, parts)
			var got []string
			for _, p := range parts {
				got = append(got, p.Plain)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Markdown(%q, %d) shows\n%q\nwant\n%q", tt.src, tt.limit, got, tt.want)
			}
		})
	}
}

// TestSplitReopensCodeBlock checks that a code block cut between two
// messages is closed at the end of the first and opened again, with its
// language, at the start of the next, keeping the indentation.
func TestSplitReopensCodeBlock(t *testing.T) {
	src := "```go\nfunc f() {\n\treturn\n}\n\nfunc g() {\n\tpanic(1)\n}\n```"
	parts := render.Markdown(src, 40)
	checkParts(t, src, 40, parts)
	want := []string{
		"<pre><code class=\"language-go\">func f() {\n\treturn\n}</code></pre>\n\n(1/2)",
		"<pre><code class=\"language-go\">func g() {\n\tpanic(1)\n}</code></pre>\n\n(2/2)",
	}
	if len(parts) != len(want) {
		t.Fatalf("got %d parts; want %d: %q", len(parts), len(want), parts)
	}
	for k, p := range parts {
		if p.HTML != want[k] {
			t.Errorf("part %d HTML = %q; want %q", k+1, p.HTML, want[k])
		}
	}
}

// TestSplitLeavesRoomForLongMarkers checks that "(k/n)" lines with two or
// three digits still fit.
func TestSplitLeavesRoomForLongMarkers(t *testing.T) {
	for _, n := range []int{30, 400} {
		src := strings.Repeat("word ", n*8)
		parts := render.Markdown(src, 40)
		checkParts(t, src, 40, parts)
		if len(parts) < 10 {
			t.Errorf("%d words gave only %d parts", n*8, len(parts))
		}
	}
}

// TestSplitKeepsEntitiesWithinTelegramsLimit checks that an answer short
// enough for one message but with more entities than Telegram shows is
// split, so that no formatting is lost.
func TestSplitKeepsEntitiesWithinTelegramsLimit(t *testing.T) {
	src := strings.Repeat("- item with **bold** and `code` text\n", 80)
	parts := render.Markdown(src, render.MaxUnits)
	checkParts(t, src, render.MaxUnits, parts)
	if len(parts) != 2 {
		t.Fatalf("160 entities in %d units gave %d parts; want 2", render.Units(parts[0].Plain), len(parts))
	}
}

// TestSplitKeepsSpacesInCode checks that a cut inside a long line of code
// keeps every space: there they are part of the code, not a gap to cut in.
func TestSplitKeepsSpacesInCode(t *testing.T) {
	for _, src := range []string{
		"```\n" + strings.Repeat("c ", 40) + "\n```",
		"`" + strings.Repeat("c ", 40) + "c`",
	} {
		parts := render.Markdown(src, 40)
		checkParts(t, src, 40, parts)
		var shown strings.Builder
		for k, p := range parts {
			shown.WriteString(strings.TrimSuffix(p.Plain, fmt.Sprintf("\n\n(%d/%d)", k+1, len(parts))))
		}
		want := strings.Trim(src, "`\n")
		if got := shown.String(); got != want {
			t.Errorf("the parts of %q show %q together; want every space kept", src, got)
		}
	}
}
