package render_test

import (
	"testing"

	"github.com/ryo-bot/ryo/render"
)

func TestStripThinking(t *testing.T) {
	tests := []struct{ in, want string }{
		{"no tags at all ", "no tags at all "},
		{"<think>plan</think>Answer", "Answer"},
		{"<think>\nline one\nline two\n</think>\n\nAnswer\n", "Answer"},
		{"<THINK>plan</Think> Answer", "Answer"},
		{"Before <think>a</think> middle <think>b</think> after", "Before  middle  after"},
		{"Partial answer.\n\n<think>still going", "Partial answer."},
		{"<think>never closed, but the answer", "never closed, but the answer"},
		{"  \n<think>never closed", "never closed"},
		{"<think>done</think><think>second thought", "second thought"},
		{"<think>done</think>Answer <think>more", "Answer"},
		{"reasoning from the template</think>Answer", "Answer"},
		{"<think></think>", ""},
		{"<thinking>not our tag</thinking>", "<thinking>not our tag</thinking>"},
		{"a < b <think", "a < b <think"},
		{"Models wrap reasoning in `<think>` tags. Then the answer.", "Models wrap reasoning in `<think>` tags. Then the answer."},
		{"Close it with `</think>` and go on.", "Close it with `</think>` and go on."},
		{"Use ``<think>`` and `</think>`.<think>hidden</think> Shown.", "Use ``<think>`` and `</think>`. Shown."},
		{"```xml\n<think>\nreasoning here\n</think>\nanswer\n```", "```xml\n<think>\nreasoning here\n</think>\nanswer\n```"},
		{"<think>plan</think>\n```\n<think>x</think>\n```", "```\n<think>x</think>\n```"},
		{"Unclosed ` backtick <think>hidden", "Unclosed ` backtick"},
	}
	for _, tt := range tests {
		if got := render.StripThinking(tt.in); got != tt.want {
			t.Errorf("StripThinking(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestMarkdownFallsBack checks what an answer that renders as nothing
// shows: the source as plain text, or "…".
func TestMarkdownFallsBack(t *testing.T) {
	tests := []struct{ src, want string }{
		{"<think>only thinking</think>", "(no answer: the model only thought about it)"},
		{"```\n   \n```", "```\n   \n```"},
		{"", "…"},
		{" \n\t ", "…"},
		{"<think></think>  ", "(no answer: the model only thought about it)"},
	}
	for _, tt := range tests {
		parts := render.Markdown(tt.src, render.MaxUnits)
		checkParts(t, tt.src, render.MaxUnits, parts)
		if len(parts) != 1 || parts[0].HTML != tt.want {
			t.Errorf("Markdown(%q) = %q; want one part %q", tt.src, parts, tt.want)
		}
	}
}

func TestStripThinkingSoFar(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<think>the person wants", ""},
		{"<think>wants a name</think>Alice", "Alice"},
		{"Hello <THINK>hmm", "Hello"},
		{"Hello <thi", "Hello"},
		{"Hello <", "Hello"},
		{"a <b> c", "a <b> c"},
		{"<think>a</think>Bob <think>second thoughts", "Bob"},
		{"Use `<think>` tags to", "Use `<think>` tags to"},
		{"```\n<think>\nstill code", "```\n<think>\nstill code"},
	}
	for _, tt := range tests {
		if got := render.StripThinkingSoFar(tt.in); got != tt.want {
			t.Errorf("StripThinkingSoFar(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
