package render

import "strings"

// item is the first line of a list item.
type item struct {
	indent  int    // columns before the marker
	marker  string // "-", "*", "+", or a number and its "." or ")"
	ordered bool
	text    string
}

// parseItem reads line as a list item: a bullet or a number of up to nine
// digits with "." or ")", then a space or the end of the line.
func parseItem(line string) (item, bool) {
	cols, rest := indent(line)
	n := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	var marker string
	switch {
	case rest == "":
		return item{}, false
	case strings.ContainsRune("-*+", rune(rest[0])):
		marker = rest[:1]
	case n >= 1 && n <= 9 && (rest[n] == '.' || rest[n] == ')'):
		marker = rest[:n+1]
	default:
		return item{}, false
	}
	after := rest[len(marker):]
	if after != "" && after[0] != ' ' && after[0] != '\t' {
		return item{}, false
	}
	return item{indent: cols, marker: marker, ordered: n >= 1, text: strings.Trim(after, " \t")}, true
}

func isItem(line string) bool {
	_, ok := parseItem(line)
	return ok && !isRule(line)
}

// startsList reports whether line starts a list right under a paragraph
// line, as CommonMark allows: a bullet with text, or the number 1. So a
// line that happens to begin with "1984." stays in its paragraph.
func startsList(line string) bool {
	it, ok := parseItem(line)
	if !ok || isRule(line) || it.text == "" {
		return false
	}
	return !it.ordered || strings.TrimLeft(it.marker[:len(it.marker)-1], "0") == "1"
}

// list shows consecutive items one per line: "• " for bullets, "  ◦ "
// for nested ones (two spaces a level), the number as written for
// ordered items, and ☐ or ☑ for task items. Lines that continue an item
// are indented under its text.
func (p *blockParser) list() {
	w := p.writer()
	var levels []int
	for p.i < len(p.lines) && isItem(p.lines[p.i]) {
		it, _ := parseItem(p.lines[p.i])
		p.i++
		if len(w.spans) > 0 {
			w.write("\n")
		}
		prefix, text := it.show(nest(&levels, it.indent))
		text += p.continuation(strings.Repeat(" ", width(prefix)))
		if text == "" {
			prefix = strings.TrimRight(prefix, " ")
		}
		w.write(prefix)
		inline(w, text)
	}
	p.add(w.result())
}

// nest is the level of an item indented by indent columns, given the
// indentation of the levels open before it: two columns more than the
// level above starts a new level.
func nest(levels *[]int, indent int) int {
	s := *levels
	for len(s) > 1 && indent < s[len(s)-1] {
		s = s[:len(s)-1]
	}
	if len(s) == 0 || indent >= s[len(s)-1]+2 {
		s = append(s, indent)
	}
	*levels = s
	return len(s) - 1
}

// show is what stands before the item's text at level, and the text.
func (it item) show(level int) (prefix, text string) {
	glyph := "•"
	if level > 0 {
		glyph = "◦"
	}
	text = it.text
	box, rest, task := taskBox(text)
	switch {
	case it.ordered && task:
		glyph, text = it.marker+" "+box, rest
	case it.ordered:
		glyph = it.marker
	case task:
		glyph, text = box, rest
	}
	return strings.Repeat("  ", level) + glyph + " ", text
}

// taskBox reads a task item's "[ ]" or "[x]".
func taskBox(text string) (box, rest string, ok bool) {
	if len(text) < 3 || text[0] != '[' || text[2] != ']' || len(text) > 3 && text[3] != ' ' && text[3] != '\t' {
		return "", text, false
	}
	switch text[1] {
	case ' ':
		box = "☐"
	case 'x', 'X':
		box = "☑"
	default:
		return "", text, false
	}
	return box, strings.Trim(text[3:], " \t"), true
}

// continuation reads the lines that continue the item just read: lines
// that start no other block, and after a blank line, indented ones. Each
// comes back on its own line behind pad. A blank line before the next
// item is skipped, so a loose list shows like a tight one.
func (p *blockParser) continuation(pad string) string {
	var b strings.Builder
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if isBlank(line) {
			next := p.nextNonBlank()
			if next == len(p.lines) || !isItem(p.lines[next]) && !p.indentedText(next) {
				break
			}
			p.i = next
			continue
		}
		if isItem(line) || p.interrupts(p.i) {
			break
		}
		b.WriteString("\n" + pad + clean(line))
		p.i++
	}
	return b.String()
}

func (p *blockParser) nextNonBlank() int {
	i := p.i
	for i < len(p.lines) && isBlank(p.lines[i]) {
		i++
	}
	return i
}

// indentedText reports whether line i is indented text that goes on with
// the item above it after a blank line.
func (p *blockParser) indentedText(i int) bool {
	cols, _ := indent(p.lines[i])
	return cols >= 2 && !p.interrupts(i)
}
