package render_test

import (
	"testing"

	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

func TestText(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		plain string
		html  string
	}{
		{"Searching the web…", 100, "Searching the web…", "Searching the web…"},
		{"a <b> & c", 100, "a <b> & c", "a &lt;b&gt; &amp; c"},
		{"abcdefghij", 10, "abcdefghij", "abcdefghij"},
		{"abcdefghijk", 10, "abcdefghi…", "abcdefghi…"},
		{"four words in here", 12, "four words…", "four words…"},
		{"ok 😀😀😀", 6, "ok 😀…", "ok 😀…"},
		{"ok 😀😀😀", 5, "ok…", "ok…"},
		{"x🇯🇵🇯🇵", 6, "x🇯🇵…", "x🇯🇵…"},
		{"a&b<c", 3, "a&…", "a&amp;…"},
		{"", 10, "…", "…"},
		{" \n ", 10, "…", "…"},
		{"bad \xff byte", 100, "bad \ufffd byte", "bad \ufffd byte"},
	}
	for _, tt := range tests {
		p := render.Text(tt.in, tt.limit)
		if p.Plain != tt.plain || p.HTML != tt.html {
			t.Errorf("Text(%q, %d) = %q, %q; want %q, %q", tt.in, tt.limit, p.Plain, p.HTML, tt.plain, tt.html)
		}
		if display, err := telegramtest.CheckHTML(p.HTML); err != nil || display != p.Plain {
			t.Errorf("Text(%q, %d).HTML shows %q, %v; want %q", tt.in, tt.limit, display, err, p.Plain)
		}
		if render.Units(p.Plain) > max(tt.limit, 1) {
			t.Errorf("Text(%q, %d) has %d units", tt.in, tt.limit, render.Units(p.Plain))
		}
	}
}

func TestUnits(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"Привет", 6},
		{"日本", 2},
		{"😀", 2},
		{"👍🏽", 4},
		{"🇯🇵", 4},
	}
	for _, tt := range tests {
		if got := render.Units(tt.in); got != tt.want {
			t.Errorf("Units(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}
