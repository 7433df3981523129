package render_test

import (
	"os"
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
