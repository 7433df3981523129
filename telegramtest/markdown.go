package telegramtest

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// mdReserved are the characters MarkdownV2 requires to be escaped with '\'
// outside of entities.
const mdReserved = "_*[]()~`>#+-=|{}.!"

// parseMarkdownV2 converts parse_mode=MarkdownV2 text into display text
// and entities: *bold* _italic_ __underline__ ~strike~ ||spoiler||
// `code`, ```pre```, [link](url), ![emoji](tg://emoji?id=N) and > quotes.
// An unescaped reserved character is an error, as in Telegram. Quotes
// produce no entity here.
func parseMarkdownV2(src string) (formatted, error) {
	p := mdParser{src: src}
	if err := p.run(); err != nil {
		return formatted{}, err
	}
	return formatted{text: p.out.String(), entities: encodeEntities(p.entities)}, nil
}

type mdParser struct {
	src      string
	pos      int
	out      strings.Builder
	units    int
	open     []mdMark
	entities []entity
}

// mdMark is an opened entity waiting for its closing delimiter.
type mdMark struct {
	token string
	at    int // byte offset in src, for errors
	start int // UTF-16 offset in out
}

func (p *mdParser) run() error {
	for p.pos < len(p.src) {
		if err := p.step(); err != nil {
			return err
		}
	}
	if n := len(p.open); n > 0 {
		m := p.open[n-1]
		return fmt.Errorf("Can't find end of %s entity at byte offset %d", mdEntityName(m.token), m.at)
	}
	return nil
}

func (p *mdParser) step() error {
	c := p.src[p.pos]
	rest := p.src[p.pos:]
	switch {
	case c == '\\':
		p.escape()
	case p.atLineStart() && quoteMarkerLen(rest) > 0:
		p.pos += quoteMarkerLen(rest)
	case c == '`':
		return p.code()
	case c == '[':
		p.push("[")
	case strings.HasPrefix(rest, "!["):
		p.push("![")
	case c == ']':
		return p.link()
	case strings.HasPrefix(rest, "||"):
		p.spoilerOrQuoteEnd()
	case c == '*' || c == '~':
		p.toggle(rest[:1])
	case c == '_':
		p.toggle(p.underscoreToken())
	case strings.IndexByte(mdReserved, c) >= 0:
		return fmt.Errorf("Character '%c' is reserved and must be escaped with the preceding '\\'", c)
	default:
		p.char()
	}
	return nil
}

func (p *mdParser) char() {
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.out.WriteRune(r)
	p.units += max(utf16.RuneLen(r), 1)
	p.pos += size
}

// escape handles '\': before an ASCII character it yields that character,
// otherwise the backslash itself.
func (p *mdParser) escape() {
	if p.pos+1 < len(p.src) && p.src[p.pos+1] > 0 && p.src[p.pos+1] <= 126 {
		p.pos++
	}
	p.char()
}

func (p *mdParser) atLineStart() bool { return p.pos == 0 || p.src[p.pos-1] == '\n' }

// quoteMarkerLen is the length of a quote marker (">" or "**>") at the
// start of s, or 0.
func quoteMarkerLen(s string) int {
	switch {
	case strings.HasPrefix(s, ">"):
		return 1
	case strings.HasPrefix(s, "**>"):
		return 3
	}
	return 0
}

// spoilerOrQuoteEnd handles "||": it ends an expandable quote when it
// closes a quoted line and no spoiler is open, else it toggles a spoiler.
func (p *mdParser) spoilerOrQuoteEnd() {
	lineStart := strings.LastIndexByte(p.src[:p.pos], '\n') + 1
	atLineEnd := p.pos+2 == len(p.src) || p.src[p.pos+2] == '\n'
	if atLineEnd && quoteMarkerLen(p.src[lineStart:]) > 0 && !p.topIs("||") {
		p.pos += 2
		return
	}
	p.toggle("||")
}

// underscoreToken tells "__" (underline) from "_" (italic); an open italic
// is closed first, as in "___".
func (p *mdParser) underscoreToken() string {
	if strings.HasPrefix(p.src[p.pos:], "__") && !p.topIs("_") {
		return "__"
	}
	return "_"
}

func (p *mdParser) topIs(token string) bool {
	return len(p.open) > 0 && p.open[len(p.open)-1].token == token
}

func (p *mdParser) push(token string) {
	p.open = append(p.open, mdMark{token: token, at: p.pos, start: p.units})
	p.pos += len(token)
}

// toggle closes token if it is the innermost open entity, else opens it.
func (p *mdParser) toggle(token string) {
	if !p.topIs(token) {
		p.push(token)
		return
	}
	m := p.pop()
	p.pos += len(token)
	p.add(entity{Type: mdEntityType(token)}, m.start)
}

func (p *mdParser) pop() mdMark {
	m := p.open[len(p.open)-1]
	p.open = p.open[:len(p.open)-1]
	return m
}

// add emits e over out[start:] unless that is empty.
func (p *mdParser) add(e entity, start int) {
	if p.units > start {
		e.Offset, e.Length = start, p.units-start
		p.entities = append(p.entities, e)
	}
}

// link closes [text](url) or ![emoji](tg://emoji?id=N).
func (p *mdParser) link() error {
	if !p.topIs("[") && !p.topIs("![") {
		return errors.New("Character ']' is reserved and must be escaped with the preceding '\\'")
	}
	m := p.pop()
	p.pos++
	url, err := p.linkURL()
	if err != nil {
		return err
	}
	if m.token == "![" {
		p.add(entity{Type: "custom_emoji", CustomEmojiID: strings.TrimPrefix(url, "tg://emoji?id=")}, m.start)
		return nil
	}
	p.add(linkEntity(url), m.start)
	return nil
}

// linkURL reads "(url)" after a link's text; inside, '\' escapes.
func (p *mdParser) linkURL() (string, error) {
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return "", nil
	}
	start := p.pos
	var b strings.Builder
	for p.pos++; p.pos < len(p.src); p.pos++ {
		switch c := p.src[p.pos]; {
		case c == ')':
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(p.src):
			p.pos++
			b.WriteByte(p.src[p.pos])
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("Can't find end of a URL at byte offset %d", start)
}

// code reads `code` or ```lang\npre```.
func (p *mdParser) code() error {
	at := p.pos
	if strings.HasPrefix(p.src[p.pos:], "```") {
		p.pos += 3
		lang := p.preLanguage()
		start := p.units
		if !p.copyUntil("```") {
			return fmt.Errorf("Can't find end of Pre entity at byte offset %d", at)
		}
		p.add(entity{Type: "pre", Language: lang}, start)
		return nil
	}
	p.pos++
	start := p.units
	if !p.copyUntil("`") {
		return fmt.Errorf("Can't find end of Code entity at byte offset %d", at)
	}
	p.add(entity{Type: "code"}, start)
	return nil
}

// preLanguage consumes the first line of a pre block when it names a
// language (or is empty).
func (p *mdParser) preLanguage() string {
	rest := p.src[p.pos:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 || strings.ContainsAny(rest[:nl], " \t`\\") {
		return ""
	}
	p.pos += nl + 1
	return rest[:nl]
}

// copyUntil copies code content up to delim and skips delim; it reports
// false if delim never comes.
func (p *mdParser) copyUntil(delim string) bool {
	for p.pos < len(p.src) {
		switch {
		case strings.HasPrefix(p.src[p.pos:], delim):
			p.pos += len(delim)
			return true
		case p.src[p.pos] == '\\':
			p.escape()
		default:
			p.char()
		}
	}
	return false
}

func mdEntityType(token string) string {
	switch token {
	case "*":
		return "bold"
	case "_":
		return "italic"
	case "__":
		return "underline"
	case "~":
		return "strikethrough"
	}
	return "spoiler"
}

func mdEntityName(token string) string {
	switch token {
	case "[":
		return "TextUrl"
	case "![":
		return "CustomEmoji"
	}
	name := mdEntityType(token)
	return strings.ToUpper(name[:1]) + name[1:]
}
