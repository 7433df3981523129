package websearch

import (
	"html"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Bounds of what one result may carry, in characters.
const (
	maxTitle   = 200
	maxSnippet = 400
	maxURL     = 1000
)

// recencySlack is how much older than its window a dated result may be and
// still count: providers date pages in their own time zones and loosely.
const recencySlack = 24 * time.Hour

// tidy is what a provider found, fit to be shown: text cleaned and
// clipped, only http(s) addresses, each address once, nothing dated before
// the query's window, at most q.Count results.
func tidy(found []Result, q Query, now time.Time) []Result {
	seen := map[string]bool{}
	var oldest time.Time
	if w := window(q.Recency); w > 0 {
		oldest = now.Add(-w - recencySlack)
	}
	out := []Result{}
	for _, r := range found {
		u, ok := webURL(r.URL)
		if !ok || seen[sameURL(u)] {
			continue
		}
		if !r.Published.IsZero() && r.Published.Before(oldest) {
			continue
		}
		seen[sameURL(u)] = true
		r.URL = u.String()
		r.Title = clip(plain(r.Title), maxTitle)
		r.Snippet = clip(plain(r.Snippet), maxSnippet)
		if r.Title == "" {
			r.Title = u.Hostname()
		}
		r.Source = site(u)
		out = append(out, r)
		if len(out) == q.Count {
			break
		}
	}
	return out
}

// webURL parses an address a person can open: absolute http or https with
// a host, of sane length, without credentials. A host in another script is
// given in ASCII, its punycode form, so that a Cyrillic "аpple.com" reads
// xn--pple-43d.com and cannot pass for apple.com.
func webURL(s string) (*url.URL, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxURL {
		return nil, false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return nil, false
	}
	if host := u.Hostname(); !isASCII(host) {
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return nil, false
		}
		if port := u.Port(); port != "" {
			ascii += ":" + port
		}
		u.Host = ascii
	}
	return u, len(u.String()) <= maxURL
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// sameURL is what two addresses of one page have in common: the host in
// lower case, the path without a trailing slash, the query; not the
// scheme or the fragment.
func sameURL(u *url.URL) string {
	return strings.ToLower(strings.TrimPrefix(u.Hostname(), "www.")) + strings.TrimSuffix(u.EscapedPath(), "/") + "?" + u.RawQuery
}

// site is the host a person recognizes: without "www.".
func site(u *url.URL) string {
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// plain is text without markup: tags dropped, entities read, characters
// that hide or reorder text dropped, runs of white space one space.
// Providers mark the words that matched with <b> or <strong> and escape
// what they quote.
func plain(s string) string {
	s = strings.ToValidUTF8(s, "")
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 >= len(s) {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '>')
		if !opensTag(s[i+1]) || end < 0 { // a "<" that opens no tag, such as "a < b"
			b.WriteByte('<')
			s = s[i+1:]
			continue
		}
		if !inline(s[i+1 : i+end]) {
			b.WriteByte(' ')
		}
		s = s[i+end+1:]
	}
	return strings.Join(strings.Fields(strings.Map(visible, html.UnescapeString(b.String()))), " ")
}

// visible is r, or -1 for a character that hides or reorders text when
// the model quotes it: format characters (a right-to-left override that
// turns "moc.elppa" into apple.com, zero-width spaces, invisible tag
// characters that spell words only a model reads), control bytes other
// than white space, and U+FFFD, a byte that was not UTF-8. The joiners
// that build emoji and Persian or Indic words stay.
func visible(r rune) rune {
	switch {
	case r == '\u200c' || r == '\u200d':
		return r
	case r == utf8.RuneError || unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && !unicode.IsSpace(r):
		return -1
	}
	return r
}

// opensTag reports whether c, after a "<", starts a tag or a comment.
func opensTag(c byte) bool {
	return c == '/' || c == '!' || c == '?' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// inline reports whether a tag marks words inside a line, so that taking
// it out leaves no gap: <b>, </strong> and the like.
func inline(tag string) bool {
	name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(tag), "/"))
	if i := strings.IndexAny(name, " \t/"); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "b", "strong", "em", "i", "u", "mark", "span", "a", "small", "sup", "sub", "code":
		return true
	}
	return false
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
