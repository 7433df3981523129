package metrics

import (
	"strings"
	"sync"
)

// other stands for every label value outside a label's bounded set.
const other = "other"

// oneOf is v when it is among known, else other.
func oneOf(v string, known ...string) string {
	for _, k := range known {
		if v == k {
			return v
		}
	}
	return other
}

// maxCodeLen is the longest error code kept; a longer one is cut.
const maxCodeLen = 32

// normalCode is an error code as a label: lower case, letters, digits and
// underscores only, at most maxCodeLen bytes; "none" when empty.
func normalCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(code) {
		if b.Len() == maxCodeLen {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// maxCodes is how many different error codes are counted apart; those
// that come after are counted as other. The tool bus's own codes and the
// built-in tools' take about twenty.
const maxCodes = 100

// maxHTTPCodes is how many different http_<status> codes, which an API's
// tools make of its answers, are counted apart, on a budget of their own:
// an API that answers with every status there is must not crowd out the
// other codes.
const maxHTTPCodes = 40

// bounded is a set of label values that stops growing at its limit.
type bounded struct {
	mu    sync.Mutex
	limit int
	seen  map[string]bool
}

func newBounded(limit int) *bounded { return &bounded{limit: limit, seen: map[string]bool{}} }

// admit returns v if it is in the set or fits in it, and other if not.
func (b *bounded) admit(v string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.seen[v] {
		if len(b.seen) >= b.limit {
			return other
		}
		b.seen[v] = true
	}
	return v
}
