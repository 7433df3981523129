package stages

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// A subject put in a tool's status line comes from the model's arguments:
// whatever it holds, the line stays one short line of valid text, with no
// character that turns the rest of the line around or hides in it.
func TestHostileSubject(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, tag := range []string{"en", "ru"} {
		for _, subject := range []string{
			"100%s %d %! %[1]s", "<b>x</b> &amp;", "abc\u202edef", "\u2066a\u2069 b\u200f",
			"a\u200bb\ufeffc", "one\ntwo\r\nthree\u2028four", strings.Repeat("я", 10_000),
			"bad \xff\xfe utf-8", "\x00\x07ctl",
		} {
			b := board{w: lang.For(tag), began: t0}
			b.observe(ryo.Step{Kind: ryo.StepTool, Tool: "web_search", Doing: "🔎 searching the web for %s", Subject: subject})
			for _, s := range []string{b.text(t0.Add(3*time.Second), true), b.doing} {
				if !utf8.ValidString(s) {
					t.Errorf("%s %q: the status is not valid UTF-8: %q", tag, subject, s)
				}
				if strings.ContainsAny(s, "\n\r") || utf8.RuneCountInString(s) > maxDoing+20 {
					t.Errorf("%s %q: the status is not one short line: %q", tag, subject, s)
				}
				for _, r := range s {
					if r != '\u200d' && (unicode.Is(unicode.Cf, r) || unicode.IsControl(r)) {
						t.Errorf("%s %q: the status keeps %U: %q", tag, subject, r, s)
						break
					}
				}
			}
			if !strings.Contains(b.doing, "<b>") && subject == "<b>x</b> &amp;" {
				t.Errorf("%s: markup in a subject is not shown as written: %q", tag, b.doing)
			}
		}
	}
}

// A subject with nothing to show leaves no bare %s in the status line.
func TestInvisibleSubject(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, tag := range []string{"en", "ru"} {
		b := board{w: lang.For(tag), began: t0}
		b.observe(ryo.Step{Kind: ryo.StepTool, Tool: "web_search", Args: []byte(`{"query":"x"}`), Doing: "🔎 searching the web for %s", Subject: "\u200b\u202e\x00"})
		if got := b.text(t0, true); strings.Contains(got, "%") {
			t.Errorf("%s: the status shows %q", tag, got)
		}
	}
}
