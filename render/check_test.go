package render_test

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"golang.org/x/net/idna"

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
		display, entities, err := telegramtest.ParseMessageHTML(p.HTML)
		switch units := len(utf16.Encode([]rune(display))); {
		case err != nil:
			t.Fatalf("part %d/%d: %v\nHTML: %q", k+1, len(parts), err, p.HTML)
		case display != p.Plain:
			t.Fatalf("part %d/%d shows %q; Plain is %q", k+1, len(parts), display, p.Plain)
		case units > max(limit, 16):
			t.Fatalf("part %d/%d has %d units; limit %d\n%q", k+1, len(parts), units, limit, p.Plain)
		case len(entities) > render.MaxEntities:
			t.Fatalf("part %d/%d has %d entities; Telegram shows %d", k+1, len(parts), len(entities), render.MaxEntities)
		}
		checkLinkTargets(t, p.HTML, entities)
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
	if len(all) == 1 { // (a cut could fall between a link and its note)
		checkHostsShown(t, all[0].HTML)
	}
}

// checkLinkTargets fails if the model's answer mentions anyone or links
// to anything but a web address.
func checkLinkTargets(t *testing.T, html string, entities []telegramtest.Entity) {
	t.Helper()
	for _, e := range entities {
		switch {
		case e.Type == "text_mention" || e.Type == "mention":
			t.Fatalf("%s of %d in %q", e.Type, e.UserID, html)
		case e.Type == "text_link" && !hasPrefixFold(e.URL, "http://") && !hasPrefixFold(e.URL, "https://"):
			t.Fatalf("a link to %q in %q", e.URL, html)
		}
	}
}

// checkHostsShown fails if a link whose text names a host (say
// "bank.com" or "https://bank.com/login") opens another one and the text
// after it does not name the host it opens. It reads hosts its own way:
// with net/url, and only ASCII names in a few top-level domains.
func checkHostsShown(t *testing.T, html string) {
	t.Helper()
	display, entities, err := telegramtest.ParseHTML(html)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entities {
		if e.Type != "text_link" {
			continue
		}
		host, ok := urlHost(e.URL)
		if !ok || !namesOtherHost(e.In(display), host) {
			continue
		}
		end := linkEnd(entities, i)
		after := string(utf16.Decode(utf16.Encode([]rune(display))[end:]))
		note, _, _ := strings.Cut(after, ")")
		if !strings.HasPrefix(note, "\u00a0(→\u00a0") || !strings.Contains(note, host) {
			t.Fatalf("the link %q to %s is followed by %q; want its host shown\nHTML: %q", e.In(display), e.URL, after, html)
		}
	}
}

// urlHost is the host of a web address, by net/url.
func urlHost(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	host, err := idna.Lookup.ToASCII(strings.TrimSuffix(u.Hostname(), "."))
	return strings.ToLower(host), err == nil
}

// hostWord matches a word that is plainly a host name.
var hostWord = regexp.MustCompile(`^(?i:https?://)?((?:[a-z0-9-]+\.)+(?:com|org|net|io))(?:[/?#:].*)?$`)

// namesOtherHost reports whether a word of text is plainly a host name
// other than host, a leading "www." aside.
func namesOtherHost(text, host string) bool {
	for _, word := range strings.Fields(text) {
		m := hostWord.FindStringSubmatch(strings.Trim(word, `.,;!?()[]<>"'`))
		if m != nil && strings.TrimPrefix(strings.ToLower(m[1]), "www.") != strings.TrimPrefix(host, "www.") {
			return true
		}
	}
	return false
}

// linkEnd is where the link of entities[i] ends, in UTF-16 units: a code
// span in the link's text splits it into several text_link entities.
func linkEnd(entities []telegramtest.Entity, i int) int {
	end := entities[i].Offset + entities[i].Length
	for _, e := range entities[i+1:] {
		if e.Offset == end && (e.Type == "code" || e.Type == "text_link" && e.URL == entities[i].URL) {
			end += e.Length
		}
	}
	return end
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
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
