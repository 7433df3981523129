package render

import "strings"

// align is a table column's alignment, from its delimiter row.
type align uint8

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// tableAt reports whether a table starts at line i: a row with pipes, then
// a delimiter row (|---|:---:|) with as many cells.
func (p *blockParser) tableAt(i int) bool {
	if i+1 >= len(p.lines) || !strings.Contains(p.lines[i], "|") {
		return false
	}
	aligns, ok := delimiterRow(p.lines[i+1])
	return ok && len(aligns) == len(cells(p.lines[i]))
}

// table shows a table as monospace text with padded columns, since
// Telegram has no tables. Cells lose their formatting; a row with more
// cells than the header widens the table rather than losing them.
func (p *blockParser) table() {
	aligns, _ := delimiterRow(p.lines[p.i+1])
	rows := [][]string{plainCells(p.lines[p.i])}
	for p.i += 2; p.i < len(p.lines) && !isBlank(p.lines[p.i]) && strings.Contains(p.lines[p.i], "|"); p.i++ {
		rows = append(rows, plainCells(p.lines[p.i]))
	}
	w := p.writer(mark{kind: markPre})
	w.write(layout(rows, aligns))
	p.add(w.result())
}

// delimiterRow reads a table's second line, one alignment per cell.
func delimiterRow(line string) ([]align, bool) {
	if !strings.Contains(line, "|") {
		return nil, false
	}
	var aligns []align
	for _, c := range cells(line) {
		dashes := strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		a := alignLeft
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			a = alignCenter
		case strings.HasSuffix(c, ":"):
			a = alignRight
		}
		aligns = append(aligns, a)
	}
	return aligns, true
}

// cells splits a row at its unescaped pipes, outer pipes optional.
func cells(line string) []string {
	s := strings.Trim(line, " \t")
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

// plainCells is a row's cells as the text they show.
func plainCells(line string) []string {
	out := cells(line)
	for i, c := range out {
		out[i] = strings.ReplaceAll(plainInline(c), "\t", " ")
	}
	return out
}

// layout lays rows out in columns of equal display width, a line of ─
// under the header.
func layout(rows [][]string, aligns []align) string {
	widths := columnWidths(rows)
	lines := make([]string, 0, len(rows)+1)
	for i, row := range rows {
		lines = append(lines, formatRow(row, widths, aligns))
		if i == 0 {
			lines = append(lines, ruler(widths))
		}
	}
	return strings.Join(lines, "\n")
}

func columnWidths(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for c, cell := range row {
			if c == len(widths) {
				widths = append(widths, 1)
			}
			widths[c] = max(widths[c], width(cell))
		}
	}
	return widths
}

func formatRow(row []string, widths []int, aligns []align) string {
	cols := make([]string, len(widths))
	for c, w := range widths {
		cell, a := "", alignLeft
		if c < len(row) {
			cell = row[c]
		}
		if c < len(aligns) {
			a = aligns[c]
		}
		cols[c] = pad(cell, w, a)
	}
	for len(cols) > 1 && isBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	return strings.TrimRight(strings.Join(cols, " │ "), " ")
}

// pad fills cell with spaces to w columns.
func pad(cell string, w int, a align) string {
	gap := w - width(cell)
	left := 0
	switch a {
	case alignRight:
		left = gap
	case alignCenter:
		left = gap / 2
	}
	return strings.Repeat(" ", left) + cell + strings.Repeat(" ", gap-left)
}

func ruler(widths []int) string {
	cols := make([]string, len(widths))
	for c, w := range widths {
		cols[c] = strings.Repeat("─", w)
	}
	return strings.Join(cols, "─┼─")
}
