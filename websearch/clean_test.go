package websearch

import (
	"strings"
	"testing"
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
	for _, s := range []string{"a <b>b</b>", "&amp;&#1;&#xffffff;", "<<>>", "\xff<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := plain(s)
		if !utf8.ValidString(got) || got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
			t.Fatalf("plain(%q) = %q", s, got)
		}
		if c := clip(got, 10); utf8.RuneCountInString(c) > 10 {
			t.Fatalf("clip(%q) = %q", got, c)
		}
	})
}
