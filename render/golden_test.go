package render_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/render"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the output")

// TestGolden renders each testdata/<name>.md as an answer and compares all
// its parts' HTML with testdata/<name>.golden.
func TestGolden(t *testing.T) {
	for _, in := range goldenInputs(t) {
		name := strings.TrimSuffix(filepath.Base(in), ".md")
		t.Run(name, func(t *testing.T) {
			got := formatParts(render.Markdown(readFile(t, in), render.MaxUnits))
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want := readFile(t, golden); got != want {
				t.Errorf("Markdown(%s) differs from %s; rerun with -update and review the diff\ngot:\n%s", in, golden, got)
			}
		})
	}
}

// TestGoldenPartsAreValid checks every golden input's parts against the
// fake Telegram.
func TestGoldenPartsAreValid(t *testing.T) {
	for _, in := range goldenInputs(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src := readFile(t, in)
			checkParts(t, src, render.MaxUnits, render.Markdown(src, render.MaxUnits))
		})
	}
}

// TestLongAnswerKeepsItsCodeWhole pins the shape of the long example: its
// Go program, which would straddle the first two parts, fits in one
// message, so it arrives whole, in a part of its own making.
func TestLongAnswerKeepsItsCodeWhole(t *testing.T) {
	parts := render.Markdown(readFile(t, "testdata/long.md"), render.MaxUnits)
	if len(parts) != 4 {
		t.Fatalf("long.md gave %d parts; want 4", len(parts))
	}
	for k, p := range parts {
		if want := fmt.Sprintf("\n\n(%d/4)", k+1); !strings.HasSuffix(p.HTML, want) {
			t.Errorf("part %d ends %q; want the marker %q", k+1, p.HTML[max(0, len(p.HTML)-20):], want)
		}
	}
	goBlocks := 0
	for _, p := range parts {
		goBlocks += strings.Count(p.HTML, `class="language-go"`)
	}
	if code := parts[1].HTML; !strings.HasPrefix(code, `<pre><code class="language-go">package main`) || goBlocks != 1 {
		t.Errorf("the program did not arrive whole in part 2 (%d Go blocks in all):\n%s", goBlocks, code)
	}
}

func goldenInputs(t *testing.T) []string {
	t.Helper()
	inputs, err := filepath.Glob("testdata/*.md")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	return inputs
}

// formatParts lays parts out one after another under a header line each.
func formatParts(parts []render.Part) string {
	var b strings.Builder
	for k, p := range parts {
		fmt.Fprintf(&b, "----- part %d/%d -----\n%s\n", k+1, len(parts), p.HTML)
	}
	return b.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
