package render

import (
	"net/netip"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
	"golang.org/x/text/unicode/norm"
)

// webHost is the host an http or https URL opens, as hosts are compared
// and shown: lower case, international names in punycode ("pаypal.com"
// with a Cyrillic "а" is xn--pypal-4ve.com), without a trailing dot. It
// reports false for any other URL, and for the forms browsers, Telegram
// and readers do not agree on: a user name before an "@"
// (https://bank.com@evil.example opens evil.example), a backslash (which
// browsers read as "/"), a percent-escape in the host, spaces and
// control characters.
func webHost(url string) (string, bool) {
	rest, ok := cutPrefixFold(url, "https://")
	if !ok {
		rest, ok = cutPrefixFold(url, "http://")
	}
	if !ok || strings.ContainsFunc(url, func(r rune) bool { return r == '\\' || unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", false
	}
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	if strings.ContainsAny(authority, "@%") {
		return "", false
	}
	host, ok := withoutPort(authority)
	if !ok {
		return "", false
	}
	if strings.HasPrefix(host, "[") {
		return host, true
	}
	host, err := idna.Lookup.ToASCII(strings.TrimSuffix(host, "."))
	return host, err == nil && validLabels(host)
}

// withoutPort is the host of host[:port], an IPv6 address in brackets
// checked and in lower case.
func withoutPort(authority string) (string, bool) {
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 {
			return "", false
		}
		host, port = authority[:end+1], authority[end+1:]
		if addr, err := netip.ParseAddr(host[1:end]); err != nil || !addr.Is6() {
			return "", false
		}
		host = strings.ToLower(host)
	} else if colon := strings.IndexByte(authority, ':'); colon >= 0 {
		host, port = authority[:colon], authority[colon:]
	}
	if port != "" && (port[0] != ':' || strings.ContainsFunc(port[1:], func(r rune) bool { return r < '0' || r > '9' })) {
		return "", false
	}
	return host, host != ""
}

// validLabels reports whether host has no empty label.
func validLabels(host string) bool {
	for label := range strings.SplitSeq(host, ".") {
		if label == "" {
			return false
		}
	}
	return true
}

// hidesHost reports whether the text of a link could make a reader
// expect another host than the one it opens: a word of it names a
// different host ("bank.com", "https://bank.com/login", or a look-alike of
// either), or names an international host only in its own script, which
// the eye cannot tell from a look-alike; or the text holds the controls
// that reorder text (so that "moc.knab" shows as "bank.com"). A leading
// "www." does not count.
func hidesHost(text, host string) bool {
	if strings.ContainsFunc(text, isBidiControl) {
		return true
	}
	named := namedHosts(text)
	for _, name := range named {
		if strings.TrimPrefix(name, "www.") != strings.TrimPrefix(host, "www.") {
			return true
		}
	}
	return len(named) > 0 && strings.Contains(host, "xn--") && !strings.Contains(strings.ToLower(readable(text)), host)
}

// namedHosts is the hosts the words of text name, written as webHost
// writes them. A word names a host when, without its scheme, path, port
// and the punctuation around it, it reads as a domain name with a real
// top-level domain ("bank.com", "www.bank.com", not "Node.js"), a
// look-alike one in other scripts, or an IPv4 address. In
// "bank.com@evil.example" both hosts count: a reader sees the first, a
// browser opens the second.
func namedHosts(text string) []string {
	var hosts []string
	for _, word := range strings.Fields(readable(text)) {
		for _, name := range authorityNames(word) {
			if host, ok := hostName(name); ok {
				hosts = append(hosts, host)
			}
		}
	}
	return hosts
}

// readable is text as a reader takes it: invisible characters removed
// and compatibility forms folded ("ｂａｎｋ．ｃｏｍ" is bank.com), the
// ideographic full stop a dot too, as in a host name.
func readable(text string) string {
	text = strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case r == '\u3002' || r == '\uff61':
			return '.'
		}
		return r
	}, text)
	return norm.NFKC.String(text)
}

// authorityNames is what a word names as its host, without a scheme, a
// path or a port, split at "@".
func authorityNames(word string) []string {
	word = strings.TrimFunc(word, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
	if i := strings.Index(word, "://"); i > 0 && hasScheme(word[:i+1]) {
		word = word[i+3:]
	}
	if end := strings.IndexAny(word, `/\?#`); end >= 0 {
		word = word[:end]
	}
	names := strings.Split(word, "@")
	for i, name := range names {
		if colon := strings.IndexByte(name, ':'); colon >= 0 {
			names[i] = name[:colon]
		}
	}
	return names
}

// hostName is name as webHost writes hosts, when it reads as one.
func hostName(name string) (string, bool) {
	name = strings.TrimSuffix(name, ".")
	host, err := idna.Lookup.ToASCII(name)
	if err != nil {
		host = strings.ToLower(name) // still a host to a reader, if not to a browser
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || !validLabels(host) {
		return "", false
	}
	tld := labels[len(labels)-1]
	if _, icann := publicsuffix.PublicSuffix(tld); icann || strings.HasPrefix(tld, "xn--") || !isASCII(tld) {
		return host, true
	}
	_, err = netip.ParseAddr(host)
	return host, err == nil
}

// isBidiControl reports whether r is one of Unicode's explicit
// directional embeddings, overrides and isolates, which can show the
// letters or the labels of a host name in another order. (The marks,
// such as U+200F, cannot reorder Latin letters and are common in Arabic
// and Hebrew.)
func isBidiControl(r rune) bool {
	return '\u202a' <= r && r <= '\u202e' || '\u2066' <= r && r <= '\u2069'
}
