package render

import "strings"

// delimRun is a run of *, _ or ~ and what it became: the marks it closes
// (taken from its left end), the characters left over as text, and the
// marks it opens (taken from its right end).
type delimRun struct {
	ch                byte
	n                 int // length as written
	rest              int // characters not used by a pair
	canOpen, canClose bool
	active            bool   // false once enclosed by a pair it is not part of
	closes            []kind // innermost first
	opens             []kind // innermost first
}

// matchEmphasis pairs delimiter runs the way CommonMark does, simplified:
// each closer, left to right, takes the nearest open run of the same
// character before it; two characters on both sides make bold, one makes
// italic; runs between a pair can no longer pair. What is not paired stays
// literal, so "**unclosed" and "2 * 3 * 4" show as written.
func matchEmphasis(toks []token) {
	for c := range toks {
		closer := &toks[c].run
		if toks[c].kind != tokDelim || !closer.canClose {
			continue
		}
		for closer.rest > 0 {
			o := findOpener(toks, c)
			if o < 0 {
				break
			}
			pair(toks, o, c)
		}
	}
}

// findOpener is the index of the nearest run before c that can open for
// it, or -1.
func findOpener(toks []token, c int) int {
	closer := &toks[c].run
	for o := c - 1; o >= 0; o-- {
		r := &toks[o].run
		if toks[o].kind == tokDelim && r.active && r.canOpen && r.rest > 0 && r.ch == closer.ch && compatible(r, closer) {
			return o
		}
	}
	return -1
}

// compatible is CommonMark's "rule of three": a run that could both open
// and close pairs only if the lengths do not add up to a multiple of 3,
// unless both are multiples of 3. It keeps "*a **b** c*" from misparsing.
func compatible(opener, closer *delimRun) bool {
	if opener.ch == '~' || !(opener.canClose || closer.canOpen) {
		return true
	}
	return (opener.n+closer.n)%3 != 0 || opener.n%3 == 0 && closer.n%3 == 0
}

func pair(toks []token, o, c int) {
	opener, closer := &toks[o].run, &toks[c].run
	k, use := markItalic, 1
	switch {
	case opener.ch == '~':
		k, use = markStrike, 2
	case opener.rest >= 2 && closer.rest >= 2:
		k, use = markBold, 2
	}
	opener.opens = append(opener.opens, k)
	closer.closes = append(closer.closes, k)
	opener.rest -= use
	closer.rest -= use
	for i := o + 1; i < c; i++ {
		toks[i].run.active = false
	}
}

// emit writes tokens into w.
func emit(w *spanWriter, toks []token) {
	for i := range toks {
		switch t := &toks[i]; t.kind {
		case tokText:
			w.write(t.text)
		case tokCode:
			w.writeCode(t.text)
		case tokDelim:
			emitRun(w, &t.run)
		case tokLink:
			emitLink(w, t)
		}
	}
}

func emitRun(w *spanWriter, r *delimRun) {
	for range r.closes {
		w.pop()
	}
	w.write(strings.Repeat(string(r.ch), r.rest))
	for i := len(r.opens) - 1; i >= 0; i-- {
		w.push(mark{kind: r.opens[i]})
	}
}
