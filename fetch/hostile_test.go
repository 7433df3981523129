package fetch

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A hostile page's text reaches the model without what could hide or
// disguise text when it is quoted: no tg:, javascript: or data: link, no
// right-to-left override or zero-width space, no control bytes; a
// look-alike host is written in punycode; a title of 10,000 characters is
// cut. The joiners that build emoji and Persian words stay.
func TestExtractDefusesAHostilePage(t *testing.T) {
	page := `<html><head><title>` + strings.Repeat("Win ", 2500) + `</title></head><body><article>
<p>Hello <a href="tg://user?id=1">mention</a>, <a href="javascript:alert(1)">js</a>, <a href="data:text/html,x">data</a>,
<a href="https://аpple.com/login">apple.com</a>, <a href="//evil.example/x">rel</a>.</p>
<p>Sign in at moc.elppa` + "\u202e" + `x and a` + "\u200b" + `b` + "\u2066" + `c` + "\x1b[31m" + `d` + "\x00" + `e` +
		"\U000E0041" + ` f. 👩` + "\u200d" + `💻 می` + "\u200c" + `خواهم [x](tg://user?id=1)</p>
<p>More words so that this is the main content of the page and readability picks it up whole.</p>
</article></body></html>`
	p, err := Extract([]byte(page), "text/html; charset=utf-8", "", "https://news.example/a")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"[x](tg:", "[mention](tg:", "javascript:", "data:", "аpple", "\u202e", "\u200b", "\u2066", "\x1b", "\x00", "\U000E0041"} {
		if strings.Contains(p.Text, bad) || strings.Contains(p.Title, bad) {
			t.Errorf("%q is in %q", bad, p.Text)
		}
	}
	for _, want := range []string{"[apple.com](https://xn--pple-43d.com/login)", "[rel](https://evil.example/x)", "👩\u200d💻", "می\u200cخواهم", `\[x\](tg://user?id=1)`} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("%q is not in %q", want, p.Text)
		}
	}
	if n := utf8.RuneCountInString(p.Title); n > MaxTitle || !strings.HasPrefix(p.Title, "Win Win") {
		t.Errorf("the title has %d characters: %.40q…", n, p.Title)
	}
}

// A body that says it is HTML, or text, but is a picture is refused as what
// it is, not read as text of noise.
func TestExtractRefusesAPictureCalledHTML(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00" + strings.Repeat("\x00\xff\x13", 300)
	for _, ct := range []string{"text/html", "text/plain; charset=utf-8", "application/json"} {
		_, err := Extract([]byte(png), ct, "", "")
		if !errors.Is(err, ErrUnsupportedType) || !strings.Contains(err.Error(), "image/png") {
			t.Errorf("%s: err = %v", ct, err)
		}
	}
}
