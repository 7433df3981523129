package fetch

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestMarkdown(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<body>
<h3>Steps</h3>
<ol><li><p>Buy a  ticket</p></li><li>Board <code>gate 4</code>
  <ul><li>bikes <b>free</b></li></ul></li></ol>
<blockquote>Mind the gap</blockquote>
<table><tr><th>Day</th><th>Time</th></tr><tr><td>Mon</td><td>07:00</td></tr></table>
<pre>line 1
  line 2</pre>
<p>See <a href="../faq#fees">the [FAQ]</a>, <a href="javascript:void(0)">this</a>, <a href="mailto:a@b.example">mail</a>
and <a href="https://x.example/">https://x.example/</a>.<br>Next line.</p>
<script>alert(1)</script><img src="a.png" alt="a picture">
</body>`))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://ferry.example/help/start")
	want := "### Steps\n\n1. Buy a ticket\n2. Board `gate 4`\n   - bikes free\n\n> Mind the gap\n\nDay | Time\nMon | 07:00\n\n" +
		"```\nline 1\n  line 2\n```\n\nSee [the \\[FAQ\\]](https://ferry.example/faq#fees), this, [mail](mailto:a@b.example) and <https://x.example/>.\nNext line."
	if got := markdown(doc, base); got != want {
		t.Fatalf("got\n%s\n---want\n%s", got, want)
	}
}
