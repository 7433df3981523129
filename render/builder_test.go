package render_test

import (
	"testing"

	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

func TestBuilderEscapesEveryPiece(t *testing.T) {
	var b render.Builder
	b.Bold("<confirm> & go")
	b.Text("\n")
	b.Pre(`{"a": "</pre><b>x</b>"}`, `json" onclick="x`)
	b.Italic("")
	b.Code("a<b")
	p := b.Part()
	want := `<b>&lt;confirm&gt; &amp; go</b>` + "\n" +
		`<pre><code class="language-json&quot; onclick=&quot;x">{"a": "&lt;/pre&gt;&lt;b&gt;x&lt;/b&gt;"}</code></pre><code>a&lt;b</code>`
	if p.HTML != want {
		t.Fatalf("HTML = %s\nwant   %s", p.HTML, want)
	}
	if p.Plain != "<confirm> & go\n"+`{"a": "</pre><b>x</b>"}`+"a<b" || b.Units() != len([]rune(p.Plain)) {
		t.Fatalf("Plain = %q, units %d", p.Plain, b.Units())
	}
	shown, _, err := telegramtest.CheckMessageHTML(p.HTML)
	if err != nil || shown != p.Plain {
		t.Fatalf("Telegram would show %q (%v); want %q", shown, err, p.Plain)
	}
}
