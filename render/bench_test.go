package render_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// BenchmarkMarkdown renders and splits the 10,000-character answer in
// testdata/long.md.
func BenchmarkMarkdown(b *testing.B) {
	data, err := os.ReadFile("testdata/long.md")
	if err != nil {
		b.Fatal(err)
	}
	src := string(data)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		render.Markdown(src, render.MaxUnits)
	}
}

// BenchmarkMarkdownRunaway renders 120-160 KB answers of a model stuck
// repeating itself: its time must grow in step with the size, not with its
// square.
func BenchmarkMarkdownRunaway(b *testing.B) {
	for _, c := range []struct{ name, unit string }{
		{"list", "- a\n"}, {"stray-brackets", "[a "}, {"bold", "**a** "}, {"code-spans", "`x` "},
	} {
		src := strings.Repeat(c.unit, 40000)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				render.Markdown(src, render.MaxUnits)
			}
		})
	}
}
