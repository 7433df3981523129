package render_test

import (
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// Only web addresses become links. Every other target is shown as code
// after the link's text, so that nobody is mentioned, and nothing opens,
// by what the model wrote.
func TestOnlyWebAddressesAreLinked(t *testing.T) {
	tests := []struct{ src, html string }{
		{"[Bob](tg://user?id=5123456789)", "Bob (<code>tg://user?id=5123456789</code>)"},
		{"[Bob](TG://USER?ID=5123456789)", "Bob (<code>TG://USER?ID=5123456789</code>)"},
		{"[Bob](tg:user?id=5123456789)", "Bob (<code>tg:user?id=5123456789</code>)"},
		{"[Bob](tg://user/?x=1&id=5123456789)", "Bob (<code>tg://user/?x=1&amp;id=5123456789</code>)"},
		{"<tg://user?id=5123456789>", "<code>tg://user?id=5123456789</code>"},
		{"[](tg://user?id=5123456789)", "<code>tg://user?id=5123456789</code>"},
		{"**[Bob](tg://user?id=5123456789)**", "<b>Bob (</b><code>tg://user?id=5123456789</code><b>)</b>"},
		{"[chat](tg://resolve?domain=alice)", "chat (<code>tg://resolve?domain=alice</code>)"},
		{"[x](javascript:alert(1))", "x (<code>javascript:alert(1)</code>)"},
		{"[x](JavaScript:alert(1))", "x (<code>JavaScript:alert(1)</code>)"},
		{"[x](data:text/html;base64,PHNjcmlwdD4=)", "x (<code>data:text/html;base64,PHNjcmlwdD4=</code>)"},
		{"[x](file:///etc/passwd)", "x (<code>file:///etc/passwd</code>)"},
		{"[write us](mailto:help@bank.com?subject=hi)", "write us (<code>mailto:help@bank.com?subject=hi</code>)"},
		{"<mailto:help@bank.com>", "<code>mailto:help@bank.com</code>"},
		{"[docs](/docs/intro)", "docs (<code>/docs/intro</code>)"},
		{"[x](https:bank.com)", "x (<code>https:bank.com</code>)"},
		// A user name before "@": readers see bank.com, browsers open evil.example.
		{"[https://bank.com](https://bank.com@evil.example)", "https://bank.com (<code>https://bank.com@evil.example</code>)"},
		{"[Bank](https://bank.com:pw@evil.example/)", "Bank (<code>https://bank.com:pw@evil.example/</code>)"},
		{"<https://bank.com@evil.example>", "<code>https://bank.com@evil.example</code>"},
		// Browsers read "\" as "/", others do not.
		{`[bank.com](<https://evil.example\@bank.com>)`, `bank.com (<code>https://evil.example\@bank.com</code>)`},
		{`[bank.com](<https://evil.example\bank.com>)`, `bank.com (<code>https://evil.example\bank.com</code>)`},
		{"[bank.com](https://evil%2Eexample)", "bank.com (<code>https://evil%2Eexample</code>)"},
		{"[x](https://)", "x (<code>https://</code>)"},
		{"[x](https://bank..com)", "x (<code>https://bank..com</code>)"},
		{"[x](https://-bank.com)", "x (<code>https://-bank.com</code>)"},
		{"[x](https://bank.com:80x/)", "x (<code>https://bank.com:80x/</code>)"},
		{"[x](https://[::1/)", "x (<code>https://[::1/</code>)"},
		// Web addresses are links.
		{"[site](https://bank.com)", `<a href="https://bank.com">site</a>`},
		{"[site](HTTP://bank.com:8080/a?b#c)", `<a href="HTTP://bank.com:8080/a?b#c">site</a>`},
		{"[site](https://[::1]:8080/)", `<a href="https://[::1]:8080/">site</a>`},
		{"<https://bank.com/a>", `<a href="https://bank.com/a">https://bank.com/a</a>`},
	}
	for _, tt := range tests {
		checkLink(t, tt.src, tt.html)
	}
}

// A bare web address stays text, which Telegram links by itself — and
// Telegram links "https://bank.com@evil.example" whole, to evil.example.
// One that hides its host (a user name before "@", a backslash, a
// percent-escape in the host) is shown as code, as in a link.
func TestBareAddressesThatHideTheirHostAreCode(t *testing.T) {
	tests := []struct{ src, html string }{
		{"log in at https://bank.com@evil.example now", "log in at <code>https://bank.com@evil.example</code> now"},
		{"https://bank.com:pw@evil.example/login", "<code>https://bank.com:pw@evil.example/login</code>"},
		{`see https://evil.example\bank.com`, `see <code>https://evil.example\bank.com</code>`},
		{"see https://evil%2Eexample/", "see <code>https://evil%2Eexample/</code>"},
		// Web addresses stay text, whatever follows their host.
		{"see https://bank.com/a_b?c=d@e, then", "see https://bank.com/a_b?c=d@e, then"},
		{"see https://bank.com/50%25.", "see https://bank.com/50%25."},
	}
	for _, tt := range tests {
		checkLink(t, tt.src, tt.html)
	}
}

// Telegram links bare tg://, ton:// and tonsite:// addresses by itself
// too: written bare, they are shown as code, as in a link.
func TestBareTelegramAddressesAreCode(t *testing.T) {
	tests := []struct{ src, html string }{
		{"ask tg://user?id=5123456789 about it", "ask <code>tg://user?id=5123456789</code> about it"},
		{"join: TG://join?invite=AbCd_Ef", "join: <code>TG://join?invite=AbCd_Ef</code>"},
		{"(tg://resolve?domain=alice)", "(<code>tg://resolve?domain=alice)</code>"},
		{"ton://transfer/EQD and tonsite://x.ton", "<code>ton://transfer/EQD</code> and <code>tonsite://x.ton</code>"},
		// Inside a word it is no address.
		{"atg://x", "atg://x"},
	}
	for _, tt := range tests {
		checkLink(t, tt.src, tt.html)
	}
}

// A link whose text names another host than the one it opens is followed
// by the host it opens, in ASCII: look-alikes in other scripts show as
// punycode. Case, a trailing dot, a port and a leading "www." do not make
// another host, and a link whose text is words stays as it is.
func TestLinksShowTheHostTheyOpen(t *testing.T) {
	const note = "\u00a0(→\u00a0"
	tests := []struct{ src, html string }{
		{"[bank.com](https://evil.example)", `<a href="https://evil.example">bank.com</a>` + note + "evil.example)"},
		{"[https://bank.com](https://evil.example)", `<a href="https://evil.example">https://bank.com</a>` + note + "evil.example)"},
		{"[bank.com/login](https://evil.example/bank.com)", `<a href="https://evil.example/bank.com">bank.com/login</a>` + note + "evil.example)"},
		{"[www.bank.com](https://evil.example)", `<a href="https://evil.example">www.bank.com</a>` + note + "evil.example)"},
		{"[Log in at bank.com.](https://evil.example)", `<a href="https://evil.example">Log in at bank.com.</a>` + note + "evil.example)"},
		{"[help@bank.com](https://evil.example)", `<a href="https://evil.example">help@bank.com</a>` + note + "evil.example)"},
		{"[bank.com:443](https://evil.example)", `<a href="https://evil.example">bank.com:443</a>` + note + "evil.example)"},
		{"[ftp://bank.com](https://evil.example)", `<a href="https://evil.example">ftp://bank.com</a>` + note + "evil.example)"},
		{"[192.168.0.1](http://192.168.0.2)", `<a href="http://192.168.0.2">192.168.0.1</a>` + note + "192.168.0.2)"},
		{"[bank.com](https://[::1]/)", `<a href="https://[::1]/">bank.com</a>` + note + "[::1])"},
		// A capital I for an l.
		{"[paypal.com](https://paypaI.com)", `<a href="https://paypaI.com">paypal.com</a>` + note + "paypai.com)"},
		// A Cyrillic а for an a, in the target, in the text, in both.
		{"[paypal.com](https://pаypal.com)", `<a href="https://pаypal.com">paypal.com</a>` + note + "xn--pypal-4ve.com)"},
		{"[pаypal.com](https://paypal.com)", `<a href="https://paypal.com">pаypal.com</a>` + note + "paypal.com)"},
		{"[pаypal.com](https://pаypal.com)", `<a href="https://pаypal.com">pаypal.com</a>` + note + "xn--pypal-4ve.com)"},
		{"[paypal.cоm](https://paypal.com)", `<a href="https://paypal.com">paypal.cоm</a>` + note + "paypal.com)"},
		{"[https://xn--pypal-4ve.com](https://paypal.com)", `<a href="https://paypal.com">https://xn--pypal-4ve.com</a>` + note + "paypal.com)"},
		{"[münchen.de](https://münchen.de)", `<a href="https://münchen.de">münchen.de</a>` + note + "xn--mnchen-3ya.de)"},
		// Full-width letters and invisible characters read as ASCII.
		{"[ｂａｎｋ．ｃｏｍ](https://evil.example)", `<a href="https://evil.example">ｂａｎｋ．ｃｏｍ</a>` + note + "evil.example)"},
		{"[ban\u200bk.com](https://evil.example)", "<a href=\"https://evil.example\">ban\u200bk.com</a>" + note + "evil.example)"},
		// Reordered: "moc.knab" shows as "bank.com".
		{"[\u202emoc.knab](https://evil.example)", "<a href=\"https://evil.example\">\u202emoc.knab</a>" + note + "evil.example)"},
		{"[\u2067com.bank\u2069](https://evil.example)", "<a href=\"https://evil.example\">\u2067com.bank\u2069</a>" + note + "evil.example)"},
		{"[\u200fشاهد](https://evil.example)", "<a href=\"https://evil.example\">\u200fشاهد</a>"},
		// Code in the link's text is not clickable, but is read with it.
		{"[at `bank.com`](https://evil.example)", `<a href="https://evil.example">at </a><code>bank.com</code>` + note + "evil.example)"},
		{"**[bank.com](https://evil.example)**", `<b><a href="https://evil.example">bank.com</a>` + note + "evil.example)</b>"},
		{"<https://evil.example/bank.com>", `<a href="https://evil.example/bank.com">https://evil.example/bank.com</a>`},
		// The same host.
		{"[Bank.COM](https://BANK.com)", `<a href="https://BANK.com">Bank.COM</a>`},
		{"[bank.com.](https://bank.com/login)", `<a href="https://bank.com/login">bank.com.</a>`},
		{"[bank.com](https://bank.com./)", `<a href="https://bank.com./">bank.com</a>`},
		{"[bank.com](https://bank.com:443/x)", `<a href="https://bank.com:443/x">bank.com</a>`},
		{"[www.bank.com](https://bank.com)", `<a href="https://bank.com">www.bank.com</a>`},
		{"[bank.com](https://www.bank.com)", `<a href="https://www.bank.com">bank.com</a>`},
		{"[xn--mnchen-3ya.de](https://münchen.de)", `<a href="https://münchen.de">xn--mnchen-3ya.de</a>`},
		{"[https://bank.com/a](https://bank.com/b)", `<a href="https://bank.com/b">https://bank.com/a</a>`},
		// Words.
		{"[log in here](https://evil.example)", `<a href="https://evil.example">log in here</a>`},
		{"[Node.js](https://nodejs.org)", `<a href="https://nodejs.org">Node.js</a>`},
		{"[e.g. this](https://evil.example)", `<a href="https://evil.example">e.g. this</a>`},
	}
	for _, tt := range tests {
		checkLink(t, tt.src, tt.html)
	}
}

func checkLink(t *testing.T, src, html string) {
	t.Helper()
	parts := render.Markdown(src, render.MaxUnits)
	checkParts(t, src, render.MaxUnits, parts)
	if len(parts) != 1 || parts[0].HTML != html {
		t.Errorf("Markdown(%q) = %q; want %q", src, parts[0].HTML, html)
	}
}
