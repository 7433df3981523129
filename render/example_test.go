package render_test

import (
	"fmt"

	"github.com/ryo-bot/ryo/render"
)

func ExampleMarkdown() {
	answer := "<think>The user wants a list.</think>\n## Plan\n\n- **Back up** the database\n- Run `make deploy`\n\nSee [the runbook](https://example.com/run?a=1&b=2)."
	for _, p := range render.Markdown(answer, render.MaxUnits) {
		fmt.Println(p.HTML)
		fmt.Println("---")
		fmt.Println(p.Plain)
	}
	// Output:
	// <b>Plan</b>
	//
	// • <b>Back up</b> the database
	// • Run <code>make deploy</code>
	//
	// See <a href="https://example.com/run?a=1&amp;b=2">the runbook</a>.
	// ---
	// Plan
	//
	// • Back up the database
	// • Run make deploy
	//
	// See the runbook.
}

func ExampleText() {
	p := render.Text("Reading <config.yaml> & friends", 24)
	fmt.Println(p.HTML)
	fmt.Println(p.Plain)
	// Output:
	// Reading &lt;config.yaml&gt; &amp;…
	// Reading <config.yaml> &…
}
