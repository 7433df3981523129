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
// before it goes too. Text without the tags comes back unchanged; otherwise
// the rest is trimmed of surrounding whitespace.
func StripThinking(s string) string {
	open, end := indexFold(s, thinkOpen), indexFold(s, thinkClose)
	if open < 0 && end < 0 {
		return s
	}
	rest := s
	if end >= 0 && (open < 0 || end < open) {
		rest = s[end+len(thinkClose):]
	}
	var kept strings.Builder
	for {
		i := indexFold(rest, thinkOpen)
		if i < 0 {
			kept.WriteString(rest)
			break
		}
		kept.WriteString(rest[:i])
		rest = rest[i+len(thinkOpen):]
		j := indexFold(rest, thinkClose)
		if j >= 0 {
			rest = rest[j+len(thinkClose):]
			continue
		}
		if !isBlank(kept.String()) {
			break
		}
	}
	return strings.TrimSpace(kept.String())
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
