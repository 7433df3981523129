package websearch

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"a <b>bold</b>, then":              "a bold, then",
		"line<br>break":                    "line break",
		"&lt;script&gt; &amp;&#39;x&#x27;": "<script> &'x'",
		"a < b and c > d":                  "a < b and c > d",
		"unclosed <b":                      "unclosed <b",
		"  many\n\tspaces  ":               "many spaces",
		"bad \xff byte":                    "bad byte",
	} {
		if got := plain(in); got != want {
			t.Errorf("plain(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzPlain(f *testing.F) {
	for _, s := range []string{"a <b>b</b>", "&amp;&#1;&#xffffff;", "&#x202e;x\u2066", "\U000e0041", "<<>>", "\xff<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := plain(s)
		if !utf8.ValidString(got) || got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("plain(%q) = %q", s, got)
		}
		if i := strings.IndexFunc(got, func(r rune) bool {
			return r == utf8.RuneError || unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d' || unicode.IsControl(r)
		}); i >= 0 {
			t.Fatalf("plain(%q) = %q keeps a hidden character at %d", s, got, i)
		}
		if c := clip(got, 10); utf8.RuneCountInString(c) > 10 {
			t.Fatalf("clip(%q) = %q", got, c)
		}
	})
}

// Whatever a provider writes as a date, it is read as a plausible time or
// as unknown.
func FuzzDates(f *testing.F) {
	for _, s := range []string{"2026-11-25T00:00:00", "2026-11-26T09:30:00+02:00", "3 hours ago", "an hour ago", "May 1, 2024", "0001-01-01", "999999 years ago"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []time.Time{searxngDate(&s), braveDate(s, s, now), braveDate("", s, now)} {
			if !d.IsZero() && (d.Year() < 1990 || d.Year() > 2200 || d.Location() != time.UTC) {
				t.Fatalf("%q read as %v", s, d)
			}
		}
	})
}
