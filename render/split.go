package render

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// split cuts the document into parts of at most limit units. When it
// takes several, each ends with a "(k/n)" line, and room for the longest
// such line is kept in every part: first assuming n has one digit, then
// two, and so on.
func (a *answer) split(limit int) []Part {
	whole := a.trim(piece{0, len(a.text)})
	if Units(a.text[whole.from:whole.to]) <= limit && a.entities(whole) <= MaxEntities {
		return []Part{a.part(whole, "")}
	}
	for most := 9; ; most = most*10 + 9 {
		pieces := a.cut(limit - Units(marker(most, most)))
		if len(pieces) <= most {
			parts := make([]Part, len(pieces))
			for k, p := range pieces {
				parts[k] = a.part(p, marker(k+1, len(pieces)))
			}
			return parts
		}
	}
}

func marker(k, n int) string { return fmt.Sprintf("\n\n(%d/%d)", k, n) }

// cut cuts the whole text into pieces of at most budget units.
func (a *answer) cut(budget int) []piece {
	var pieces []piece
	for from := a.trim(piece{0, len(a.text)}).from; from < len(a.text); {
		end, next := a.cutAfter(from, budget)
		pieces = append(pieces, a.trim(piece{from, end}))
		from = a.trim(piece{next, len(a.text)}).from
	}
	return pieces
}

// level ranks the places a cut can go, best first.
type level uint8

const (
	atBlock   level = iota // between two blocks
	atGap                  // at a blank line inside a block, such as between two functions in code
	atLine                 // at a line break outside inline entities
	atSpace                // at a space outside inline entities
	inEntity               // at a line break or space inside an inline entity
	atChar                 // between two characters outside inline entities
	inChar                 // between two characters inside an inline entity
	inCluster              // between two runes of one visible character
	levels
)

// cutAfter picks where the piece starting at from ends: the latest cut of
// the best level that fits in budget and leaves the piece more than half
// full. When no block ends past half, but one ends past a quarter and a
// code block after it fits whole in the next piece, the cut goes there: a
// code block that fits in one message is not cut in two. Only when the sole
// cuts fall inside a visible character does an earlier boundary between
// characters win. It returns the end and where the next piece starts; a
// cut at a line break or space drops that character.
func (a *answer) cutAfter(from, budget int) (end, next int) {
	var best [levels]int
	early := 0      // the latest boundary between characters before half
	earlyBlock := 0 // the latest boundary between blocks from a quarter to half
	s := scanner{a: a, si: a.spanAt(from)}
	ents := entityCounter{a: a, si: s.si, n: len(a.spans[s.si].marks)}
	p, units := from, 0
	for p < len(a.text) {
		if ents.enter(p) > MaxEntities {
			break // Telegram would show the rest without its formatting
		}
		r, size := utf8.DecodeRuneInString(a.text[p:])
		switch {
		case units > budget/2:
			best[s.level(p, r)] = p
		case p > from && !joins(s.prev, r, s.ris):
			early = p
			if units > budget/4 && s.level(p, r) == atBlock {
				earlyBlock = p
			}
		}
		if units += runeUnits(r); units > budget {
			break
		}
		s.advance(r)
		p += size
	}
	if p == len(a.text) {
		return p, p
	}
	if best[atBlock] <= from && earlyBlock > from && a.nextBlockFits(earlyBlock, budget) {
		return earlyBlock, earlyBlock
	}
	for l, at := range best[:inCluster] {
		if at > from {
			return at, resume(level(l), at)
		}
	}
	if early > from {
		return early, early
	}
	if at := best[inCluster]; at > from {
		return at, at
	}
	_, size := utf8.DecodeRuneInString(a.text[from:]) // no room even for one character
	return from + size, from + size
}

// nextBlockFits reports whether the block after the boundary at is a code
// block that fits in budget units on its own. (Prose may be cut at a line
// or a space at no great cost; code loses its copy button and its
// highlighting.)
func (a *answer) nextBlockFits(at, budget int) bool {
	first := a.spanAt(at) + 1
	if first >= len(a.spans) || !slices.ContainsFunc(a.spans[first].marks, func(m mark) bool { return m.kind == markPre }) {
		return false
	}
	end := len(a.text)
	for i := first; i < len(a.spans); i++ {
		if a.spans[i].brk {
			end = a.start[i]
			break
		}
	}
	next := a.trim(piece{at, end})
	return Units(a.text[next.from:next.to]) <= budget
}

// MaxEntities is how many entities Telegram shows in one message; it
// drops the formatting of any more.
const MaxEntities = 100

// entityCounter counts the entities a piece opens as a cut scans it: the
// marks of its first span, then each mark a later span opens.
type entityCounter struct {
	a  *answer
	si int // the span holding the last position entered
	n  int
}

// enter moves to position p, at or after the last, and returns the
// entities opened up to it.
func (c *entityCounter) enter(p int) int {
	for c.si+1 < len(c.a.spans) && c.a.start[c.si+1] <= p {
		prev := c.a.spans[c.si].marks
		c.si++
		c.n += len(c.a.spans[c.si].marks) - commonPrefix(prev, c.a.spans[c.si].marks)
	}
	return c.n
}

// entities is how many entities piece p shows.
func (a *answer) entities(p piece) int {
	if p.from >= len(a.text) {
		return 0
	}
	c := entityCounter{a: a, si: a.spanAt(p.from)}
	c.n = len(a.spans[c.si].marks)
	return c.enter(max(p.to-1, p.from))
}

// isCode reports whether marks put text in a code block or a code span.
func isCode(marks []mark) bool {
	return slices.ContainsFunc(marks, func(m mark) bool { return m.kind == markPre || m.kind == markCode })
}

func resume(l level, at int) int {
	if l == atGap || l == atLine || l == atSpace || l == inEntity {
		return at + 1
	}
	return at
}

// scanner walks the display text, keeping what level needs to know about
// the runes before the position.
type scanner struct {
	a    *answer
	si   int  // the span holding the position
	prev rune // the rune before the position
	ris  int  // regional indicators ending at prev
}

func (s *scanner) advance(r rune) {
	s.prev = r
	if isRegional(r) {
		s.ris++
	} else {
		s.ris = 0
	}
}

// level ranks a cut at byte p, just before rune r.
func (s *scanner) level(p int, r rune) level {
	a := s.a
	for a.start[s.si+1] <= p {
		s.si++
	}
	sp := &a.spans[s.si]
	first := p == a.start[s.si]
	inside := hasInline(sp.marks)
	switch {
	case first && sp.brk:
		return atBlock
	case r == ' ' && isCode(sp.marks):
		// A space is part of the code: a cut there must keep it.
		if inside {
			return inChar
		}
		return atChar
	case r == '\n' || r == ' ':
		switch {
		case inside:
			return inEntity
		case r == ' ':
			return atSpace
		case p+1 < len(a.text) && a.text[p+1] == '\n':
			return atGap
		}
		return atLine
	case joins(s.prev, r, s.ris):
		return inCluster
	}
	if first && s.si > 0 {
		inside = sharesInline(a.spans[s.si-1].marks, sp.marks)
	}
	if inside {
		return inChar
	}
	return atChar
}
