package knowledge_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/knowledge"
)

// A document's name is shown in lists and cited in answers, and a name
// already there (in any case) is replaced: names that look the same must
// be the same, and none may hide or reorder what it shows.
func TestNameIsOneFormAndShowsWhatItIs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"café.md", "café.md"},
		{"cafe\u0301.md", "café.md"},             // decomposed: the same name
		{"invoice\u202Efdp.md", "invoicefdp.md"}, // a right-to-left override
		{"a\u200bb\x07c.txt", "abc.txt"},         // zero-width space, a bell
		{" two\t\nlines\r.md ", "two lines .md"},
		{"\u202E\u200b", "document"},
		{"", "document"},
		{"دفترچه\u200cراهنما.md", "دفترچه\u200cراهنما.md"}, // a Persian joiner stays
	}
	for _, tt := range tests {
		if got := knowledge.Name(tt.in); got != tt.want {
			t.Errorf("Name(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
	long := knowledge.Name(strings.Repeat("é", 300) + ".md")
	if n := utf8.RuneCountInString(long); n > knowledge.MaxName || !strings.HasSuffix(long, "…") {
		t.Errorf("a 303-character name became %d characters: %q", n, long)
	}
}
