package render_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// FuzzMarkdown renders any text at any limit from 64 to 4096 units and
// checks the parts with checkParts. The golden inputs seed it.
func FuzzMarkdown(f *testing.F) {
	inputs, err := filepath.Glob("testdata/*.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), 0)
		f.Add(string(src), 700)
	}
	f.Fuzz(func(t *testing.T, src string, n int) {
		limit := 64 + int(uint(n)%(render.MaxUnits-64+1))
		checkParts(t, src, limit, render.Markdown(src, limit))
	})
}

// FuzzLinks renders links of any text to any target, written the three
// ways Markdown has, and checks them with checkParts: no mention and no
// link but to a web address, and a link whose text names another host
// followed by the host it opens.
func FuzzLinks(f *testing.F) {
	seeds := [][2]string{
		{"Bob", "tg://user?id=5123456789"}, {"Bob", "TG://USER?ID=5123456789"}, {"Bob", "tg:user?id=5123456789"},
		{"x", "javascript:alert(1)"}, {"https://bank.com", "https://bank.com@evil.example"},
		{"paypal.com", "https://paypaI.com"}, {"paypal.com", "https://pаypal.com"}, {"bank.com.", "https://BANK.com"},
		{"bank.com", `https://evil.example\@bank.com`}, {"**bank.com** `x`", "https://evil.example/"},
		{"www.bank.com", "https://bank.com"}, {"log in", "https://evil.example"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, target string) {
		for _, src := range []string{"[" + text + "](" + target + ")", "[" + text + "](<" + target + ">)", "<" + target + ">"} {
			checkParts(t, src, render.MaxUnits, render.Markdown(src, render.MaxUnits))
		}
	})
}
