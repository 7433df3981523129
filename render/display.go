package render

import (
	"sort"
	"strings"
)

// answer is a rendered answer ready to be cut into messages: its spans,
// and their texts joined into the display text.
type answer struct {
	spans []span
	start []int // start[i] is where spans[i] begins in text; one more entry holds len(text)
	text  string
}

func newAnswer(spans []span) *answer {
	a := &answer{spans: spans, start: make([]int, 0, len(spans)+1)}
	var b strings.Builder
	for _, s := range spans {
		a.start = append(a.start, b.Len())
		b.WriteString(s.text)
	}
	a.start = append(a.start, b.Len())
	a.text = b.String()
	return a
}

// piece is the byte range of the display text that one part shows.
type piece struct{ from, to int }

func (a *answer) part(p piece, suffix string) Part {
	var b strings.Builder
	writeHTML(&b, a.slice(p))
	return Part{HTML: b.String() + suffix, Plain: a.text[p.from:p.to] + suffix}
}

// slice is the spans covering p, cut to it.
func (a *answer) slice(p piece) []span {
	var out []span
	for i := a.spanAt(p.from); i < len(a.spans) && a.start[i] < p.to; i++ {
		lo, hi := max(p.from, a.start[i]), min(p.to, a.start[i+1])
		s := a.spans[i]
		s.text = a.text[lo:hi]
		out = append(out, s)
	}
	return out
}

// spanAt is the index of the span holding byte offset p.
func (a *answer) spanAt(p int) int {
	return sort.Search(len(a.spans), func(i int) bool { return a.start[i+1] > p })
}

// trim drops line breaks at the edges of p. Spaces stay: they may be a
// code block's indentation.
func (a *answer) trim(p piece) piece {
	for p.from < p.to && a.text[p.from] == '\n' {
		p.from++
	}
	for p.to > p.from && a.text[p.to-1] == '\n' {
		p.to--
	}
	return p
}
