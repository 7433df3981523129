package telegramtest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseHTMLAccepts(t *testing.T) {
	tests := []struct {
		src, text, entities string
	}{
		{"plain", "plain", ""},
		{"<b>bold <i>both</i></b> &lt;tag&gt; &amp; &quot;q&quot; &#128512; &#x41;", `bold both <tag> & "q" 😀 A`,
			`[{"type":"bold","offset":0,"length":9},{"type":"italic","offset":5,"length":4}]`},
		{"😀<u>x</u>", "😀x", `[{"type":"underline","offset":2,"length":1}]`},
		{`<a href="https://e.com/?a=1&amp;b=2">link</a>`, "link", `[{"type":"text_link","offset":0,"length":4,"url":"https://e.com/?a=1\u0026b=2"}]`},
		{`<pre><code class="language-go">x := 1</code></pre>`, "x := 1", `[{"type":"pre","offset":0,"length":6,"language":"go"}]`},
		{"<code>c</code><s>s</s><del>d</del><tg-spoiler>p</tg-spoiler>", "csdp",
			`[{"type":"code","offset":0,"length":1},{"type":"strikethrough","offset":1,"length":1},{"type":"strikethrough","offset":2,"length":1},{"type":"spoiler","offset":3,"length":1}]`},
		{`<span class="tg-spoiler">s</span><blockquote expandable>q</blockquote>`, "sq",
			`[{"type":"spoiler","offset":0,"length":1},{"type":"expandable_blockquote","offset":1,"length":1}]`},
		{`<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>`, "👍", `[{"type":"custom_emoji","offset":0,"length":2,"custom_emoji_id":"5368324170671202286"}]`},
		{"<B>up</B ><b></b>", "up", `[{"type":"bold","offset":0,"length":2}]`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := parseHTML(tt.src)
			if err != nil {
				t.Fatalf("parseHTML: %v", err)
			}
			if got.text != tt.text || string(got.entities) != tt.entities {
				t.Errorf("got %q %s\nwant %q %s", got.text, got.entities, tt.text, tt.entities)
			}
		})
	}
}

func TestParseHTMLRejects(t *testing.T) {
	tests := []struct{ src, want string }{
		{"<b>open", `Can't find end tag corresponding to start tag "b"`},
		{"<b><i>x</b></i>", `Unmatched end tag at byte offset 7, expected "</i>", found "</b>"`},
		{"<blink>x</blink>", `Unsupported start tag "blink" at byte offset 0`},
		{"<br/>", `Unsupported start tag "br/" at byte offset 0`},
		{"a < b", `Unsupported start tag "" at byte offset 2`},
		{"🏟 🏟&lt;<abacaba", "Unclosed start tag at byte offset 13"},
		{"🏟 🏟&lt;</", "Unexpected end tag at byte offset 13"},
		{"<i>a</i   ", "Unclosed end tag at byte offset 4"},
		{"x</b>", "Unexpected end tag at byte offset 1"},
		{"Tom & Jerry", "Unsupported HTML entity at byte offset 4"},
		{"&nbsp;", "Unsupported HTML entity at byte offset 0"},
		{"&#0;", "Unsupported HTML entity at byte offset 0"},
		{`<span class="x">s</span>`, `Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{`<a href=http://x>l</a>`, "Unexpected end of name token at byte offset 8"},
		{`<a href="x>l</a>`, "Unclosed start tag at byte offset 0"},
		{`<tg-emoji emoji-id="abc">x</tg-emoji>`, "Invalid custom emoji identifier specified"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := parseHTML(tt.src)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseMarkdownV2(t *testing.T) {
	tests := []struct {
		src, text, entities, err string
	}{
		{src: `*bold* _it_ __under__ ~s~ ||sp||`, text: "bold it under s sp",
			entities: `[{"type":"bold","offset":0,"length":4},{"type":"italic","offset":5,"length":2},{"type":"underline","offset":8,"length":5},{"type":"strikethrough","offset":14,"length":1},{"type":"spoiler","offset":16,"length":2}]`},
		{src: `Done\. 1\+1\=2 \(ok\)`, text: "Done. 1+1=2 (ok)"},
		{src: "[site](https://e.com/a\\)b) `a.b` ```go\nx.y```", text: "site a.b x.y",
			entities: `[{"type":"text_link","offset":0,"length":4,"url":"https://e.com/a)b"},{"type":"code","offset":5,"length":3},{"type":"pre","offset":9,"length":3,"language":"go"}]`},
		{src: ">quoted\n**>hidden||", text: "quoted\nhidden"},
		{src: "Done.", err: `Character '.' is reserved and must be escaped with the preceding '\'`},
		{src: "*open", err: "Can't find end of Bold entity at byte offset 0"},
		{src: "a `code", err: "Can't find end of Code entity at byte offset 2"},
		{src: "x - y", err: "Character '-' is reserved"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := parseMarkdownV2(tt.src)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got.text != tt.text || string(got.entities) != tt.entities {
				t.Errorf("got %q %s %v\nwant %q %s", got.text, got.entities, err, tt.text, tt.entities)
			}
		})
	}
}

// checkEntities fails if an entity does not fit the text.
func checkEntities(t *testing.T, f formatted) {
	var list []entity
	if len(f.entities) > 0 {
		if err := json.Unmarshal(f.entities, &list); err != nil {
			t.Fatalf("entities %s: %v", f.entities, err)
		}
	}
	n := utf16Len(f.text)
	for _, e := range list {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > n {
			t.Fatalf("entity %+v outside text of %d units %q", e, n, f.text)
		}
	}
}

func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{"<b>x</b>", "<a href='u'>l</a>", "&lt;&#x1F600;", "<pre><code class=\"language-go\">1</code></pre>", "😀<i>a</i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, err := parseHTML(src); err == nil {
			checkEntities(t, got)
		}
	})
}

func FuzzParseMarkdownV2(f *testing.F) {
	for _, s := range []string{"*b* _i_ __u__", "[l](u)", "```go\nx```", ">q\n**>e||", `\.\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, err := parseMarkdownV2(src); err == nil {
			checkEntities(t, got)
		}
	})
}
