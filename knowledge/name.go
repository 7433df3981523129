package knowledge

import (
	"strings"

	"golang.org/x/text/unicode/norm"
)

// MaxName is the most characters of a document's name.
const MaxName = 200

// Name is a document's name as the knowledge base keeps it, lists it and
// cites it: in one Unicode form (NFC), so that a "café.md" sent from a
// system that decomposes accents replaces the one already there; without
// the characters that hide or reorder what it shows (a right-to-left
// override that makes "invoice‮fdp.md" look like "invoicedm.pdf",
// zero-width spaces, control bytes), the joiners of emoji and Persian
// words kept; its white space one space; cut at MaxName characters. A
// name with nothing left is "document".
func Name(name string) string {
	name = strings.Map(visible, norm.NFC.String(name))
	name = strings.Join(strings.Fields(name), " ")
	if runes := []rune(name); len(runes) > MaxName {
		name = strings.TrimSpace(string(runes[:MaxName-1])) + "…"
	}
	if name == "" {
		return "document"
	}
	return name
}
