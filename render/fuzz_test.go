package render_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ryo-bot/ryo/render"
)

// FuzzMarkdown renders any text at any limit from 64 to 4096 units and
// checks the parts with checkParts. The golden inputs seed it.
func FuzzMarkdown(f *testing.F) {
	inputs, err := filepath.Glob("testdata/*.md")
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src), 0)
		f.Add(string(src), 700)
	}
	f.Fuzz(func(t *testing.T, src string, n int) {
		limit := 64 + int(uint(n)%(render.MaxUnits-64+1))
		checkParts(t, src, limit, render.Markdown(src, limit))
	})
}
