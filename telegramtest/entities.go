package telegramtest

import (
	"strings"
	"unicode"
	"unicode/utf16"
)

// detectEntities finds what Telegram marks in a user's plain text: bot
// commands (/start, /start@bot) and @mentions, with UTF-16 offsets. The
// rules follow TDLib's matchers.
func detectEntities(text string) []entity {
	rs := []rune(text)
	at := utf16Offsets(rs)
	var out []entity
	for i := 0; i < len(rs); i++ {
		kind, end := matchEntity(rs, i)
		if kind == "" {
			continue
		}
		out = append(out, entity{Type: kind, Offset: at[i], Length: at[end] - at[i]})
		i = end - 1
	}
	return out
}

// utf16Offsets maps rune index to UTF-16 offset, with one extra entry for
// the end of the text.
func utf16Offsets(rs []rune) []int {
	at := make([]int, len(rs)+1)
	for i, r := range rs {
		at[i+1] = at[i] + max(utf16.RuneLen(r), 1)
	}
	return at
}

func matchEntity(rs []rune, i int) (string, int) {
	switch rs[i] {
	case '/':
		if end := matchCommand(rs, i); end > 0 {
			return "bot_command", end
		}
	case '@':
		if end := matchMention(rs, i); end > 0 {
			return "mention", end
		}
	}
	return "", 0
}

// matchCommand matches /[A-Za-z0-9_]{1,64}(@[A-Za-z0-9_]{3,32})? standing
// alone as a word, returning its end or 0.
func matchCommand(rs []rune, i int) int {
	if i > 0 && commandNeighbour(rs[i-1]) {
		return 0
	}
	end := scanName(rs, i+1)
	if n := end - i - 1; n < 1 || n > 64 {
		return 0
	}
	if end < len(rs) && rs[end] == '@' {
		at := end
		end = scanName(rs, at+1)
		if n := end - at - 1; n < 3 || n > 32 {
			return 0
		}
	}
	if end < len(rs) && commandNeighbour(rs[end]) {
		return 0
	}
	return end
}

// matchMention matches @[A-Za-z0-9_]{4,32} standing alone as a word.
// (TDLib finds 2+ characters but drops mentions shorter than 4.)
func matchMention(rs []rune, i int) int {
	if i > 0 && isWordRune(rs[i-1]) {
		return 0
	}
	end := scanName(rs, i+1)
	if n := end - i - 1; n < 4 || n > 32 {
		return 0
	}
	if end < len(rs) && isWordRune(rs[end]) {
		return 0
	}
	return end
}

// scanName returns the end of the run of [A-Za-z0-9_] starting at i.
func scanName(rs []rune, i int) int {
	for i < len(rs) && rs[i] < unicode.MaxASCII && (rs[i] == '_' || unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) {
		i++
	}
	return i
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

func commandNeighbour(r rune) bool {
	return isWordRune(r) || strings.ContainsRune("/<>", r)
}
