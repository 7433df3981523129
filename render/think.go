package render

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// StripThinking removes <think>…</think> blocks, in any letter case, from
// a model's answer. An unclosed <think> hides everything after it, because
// the model is still thinking, unless nothing came before it: then only the
// tag goes, so that an answer the model forgot to close is not lost. A
// </think> with no <think> before it ends thinking that began before the
// text did (some chat templates open the block in the prompt), so what is
// before it goes too. Tags inside code — a fenced block or a `code span` —
// are text the answer is about, and stay. Text without the tags comes back
// unchanged; otherwise the rest is trimmed of surrounding whitespace.
func StripThinking(s string) string {
	code := codeRanges(s)
	open, end := findTag(s, thinkOpen, 0, code), findTag(s, thinkClose, 0, code)
	if open < 0 && end < 0 {
		return s
	}
	pos := 0
	if end >= 0 && (open < 0 || end < open) {
		pos = end + len(thinkClose)
	}
	var kept strings.Builder
	for {
		i := findTag(s, thinkOpen, pos, code)
		if i < 0 {
			kept.WriteString(s[pos:])
			break
		}
		kept.WriteString(s[pos:i])
		pos = i + len(thinkOpen)
		if j := findTag(s, thinkClose, pos, code); j >= 0 {
			pos = j + len(thinkClose)
			continue
		}
		if !isBlank(kept.String()) {
			break
		}
	}
	return strings.TrimSpace(kept.String())
}

// findTag is the byte offset of the first tag in s at or after from and
// outside code, or -1.
func findTag(s, tag string, from int, code [][2]int) int {
	for from <= len(s) {
		i := indexFold(s[from:], tag)
		if i < 0 {
			return -1
		}
		i += from
		inside := false
		for _, r := range code {
			if r[0] <= i && i < r[1] {
				inside, from = true, r[1]
				break
			}
		}
		if !inside {
			return i
		}
	}
	return -1
}

// codeRanges returns the byte ranges of s that are code: fenced blocks
// (to the end of s when one is not closed yet) and code spans, which end
// on their own line.
func codeRanges(s string) [][2]int {
	var ranges [][2]int
	var open *fence
	start := 0
	for at := 0; at < len(s); {
		end := strings.IndexByte(s[at:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += at
		}
		line := s[at:end]
		switch f, ok := openFence(line); {
		case open != nil && open.closes(line):
			ranges = append(ranges, [2]int{start, end})
			open = nil
		case open != nil:
		case ok:
			open, start = &f, at
		default:
			ranges = append(ranges, codeSpans(line, at)...)
		}
		at = end + 1
	}
	if open != nil {
		ranges = append(ranges, [2]int{start, len(s)})
	}
	return ranges
}

// codeSpans returns the code spans of one line, offset by at: a run of
// backticks up to the next run of the same length.
func codeSpans(line string, at int) [][2]int {
	var ranges [][2]int
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := runLen(line, i)
		closing := closingRun(line, i+n, n)
		if closing < 0 {
			i += n
			continue
		}
		ranges = append(ranges, [2]int{at + i, at + closing + n})
		i = closing + n
	}
	return ranges
}

// closingRun is the offset of the next run of exactly n backticks in line
// from i, or -1.
func closingRun(line string, i, n int) int {
	for i < len(line) {
		if line[i] != '`' {
			i++
			continue
		}
		m := runLen(line, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// indexFold is the byte offset of the first tag in s, ignoring ASCII
// letter case, or -1.
func indexFold(s, tag string) int {
	for i := 0; i+len(tag) <= len(s); i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 || i+j+len(tag) > len(s) {
			return -1
		}
		i += j
		if asciiEqualFold(s[i:i+len(tag)], tag) {
			return i
		}
	}
	return -1
}

// StripThinkingSoFar is StripThinking for an answer still being written:
// a <think> not closed yet hides everything after it even when nothing
// came before — the model is still thinking — and so does a tag only begun
// at the end.
func StripThinkingSoFar(s string) string {
	for n := len(thinkOpen) - 1; n > 0; n-- {
		if len(s) >= n && asciiEqualFold(s[len(s)-n:], thinkOpen[:n]) {
			s = s[:len(s)-n]
			break
		}
	}
	code := codeRanges(s)
	for pos := 0; ; {
		i := findTag(s, thinkOpen, pos, code)
		if i < 0 {
			break
		}
		j := findTag(s, thinkClose, i+len(thinkOpen), code)
		if j < 0 {
			s = s[:i]
			break
		}
		pos = j + len(thinkClose)
	}
	return strings.TrimSpace(StripThinking(s))
}
