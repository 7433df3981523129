package render_test

import (
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// TestInline pins the inline rules on one-line answers.
func TestInline(t *testing.T) {
	tests := []struct{ src, html string }{
		{"**b** __b__ *i* _i_ ~~s~~", "<b>b</b> <b>b</b> <i>i</i> <i>i</i> <s>s</s>"},
		{"2 * 3 * 4", "2 * 3 * 4"},
		{"a*b*c", "a<i>b</i>c"},
		{"snake_case_name", "snake_case_name"},
		{"_ not emphasis _", "_ not emphasis _"},
		{"**unclosed", "**unclosed"},
		{"***x**", "*<b>x</b>"},
		{"***both***", "<i><b>both</b></i>"},
		{"*a **b** c*", "<i>a <b>b</b> c</i>"},
		{"**a *b* c**", "<b>a <i>b</i> c</b>"},
		{"~x~ ~~~x~~~ ~~x~~", "~x~ ~~~x~~~ <s>x</s>"},
		{"`a*b*c`", "<code>a*b*c</code>"},
		{"``a ` b``", "<code>a ` b</code>"},
		{"` `` `", "<code>``</code>"},
		{"`unclosed", "`unclosed"},
		{"**bold `code` bold**", "<b>bold </b><code>code</code><b> bold</b>"},
		{"*`code`*", "<code>code</code>"},
		{`\*not\* \\ \a`, `*not* \ \a`},
		{"[a](https://x.io) [b](ftp://x.io)", `<a href="https://x.io">a</a> b (<code>ftp://x.io</code>)`},
		{"[a](https://x.io?a=1&b=\"2\")", `<a href="https://x.io?a=1&amp;b=&quot;2&quot;">a</a>`},
		{"[a](https://x.io/(paren))", `<a href="https://x.io/(paren)">a</a>`},
		{"[a](<https://x.io/a b>)", "a (<code>https://x.io/a b</code>)"},
		{"[](https://x.io)", `<a href="https://x.io">https://x.io</a>`},
		{"[link](", "[link]("},
		{"**[bold link](https://x.io)**", `<b><a href="https://x.io">bold link</a></b>`},
		{"[**in**](https://x.io)", `<a href="https://x.io"><b>in</b></a>`},
		{"*[a*](https://x.io)", `*<a href="https://x.io">a*</a>`},
		{"<https://x.io> <x@y.z> <b>", `<a href="https://x.io">https://x.io</a> &lt;x@y.z&gt; &lt;b&gt;`},
		{"see https://x.io/a_b_c/*x*", "see https://x.io/a_b_c/<i>x</i>"},
		{"**https://x.io**", "<b>https://x.io</b>"},
	}
	for _, tt := range tests {
		parts := render.Markdown(tt.src, render.MaxUnits)
		checkParts(t, tt.src, render.MaxUnits, parts)
		if len(parts) != 1 || parts[0].HTML != tt.html {
			t.Errorf("Markdown(%q) = %q; want %q", tt.src, parts[0].HTML, tt.html)
		}
	}
}
