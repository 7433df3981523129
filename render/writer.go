package render

import (
	"slices"
	"strings"
)

// spanWriter collects spans while tracking which marks are open at the
// write position. Marks opened inside a mark of the same kind (bold inside
// a bold heading) are not opened twice.
type spanWriter struct {
	spans []span
	open  []mark
	dup   []bool // one per push: whether that push was a no-op
}

// newWriter starts writing with base marks open, outermost first.
func newWriter(base []mark) *spanWriter {
	return &spanWriter{open: slices.Clip(base)}
}

// write adds text with the marks open now.
func (w *spanWriter) write(text string) { w.add(text, w.open) }

// writeCode adds a code span. Telegram's code cannot sit inside another
// entity, so only the block marks stay open around it.
func (w *spanWriter) writeCode(text string) {
	w.add(text, append(blockMarks(w.open), mark{kind: markCode}))
}

func (w *spanWriter) add(text string, marks []mark) {
	if text != "" {
		w.spans = append(w.spans, span{text: text, marks: marks})
	}
}

// result is the spans written, neighbours with the same marks joined into
// one. (Joining as they are written would copy the text again with every
// piece.)
func (w *spanWriter) result() []span {
	var out []span
	for i := 0; i < len(w.spans); {
		j := i + 1
		for j < len(w.spans) && slices.Equal(w.spans[j].marks, w.spans[i].marks) {
			j++
		}
		joined := w.spans[i]
		if j > i+1 {
			var b strings.Builder
			for _, s := range w.spans[i:j] {
				b.WriteString(s.text)
			}
			joined.text = b.String()
		}
		out = append(out, joined)
		i = j
	}
	return out
}

// push opens m. The slice is copied so that spans written before keep
// their marks.
func (w *spanWriter) push(m mark) {
	dup := m.kind != markLink && slices.ContainsFunc(w.open, func(o mark) bool { return o.kind == m.kind })
	w.dup = append(w.dup, dup)
	if !dup {
		w.open = append(slices.Clip(w.open), m)
	}
}

// pop closes the mark opened by the latest push still open.
func (w *spanWriter) pop() {
	n := len(w.dup) - 1
	if !w.dup[n] {
		w.open = w.open[:len(w.open)-1]
	}
	w.dup = w.dup[:n]
}
