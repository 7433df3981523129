package telegramtest

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Error texts below copy Telegram's (TDLib's parse_html), capitals included,
// because bots match on them.

// parseHTML converts parse_mode=HTML text into display text and entities.
// Supported: b strong i em u ins s strike del a(href; a person's
// tg://user?id=N link is a text_mention) code pre (with an
// inner <code class="language-…">) blockquote(expandable) tg-spoiler
// span(class="tg-spoiler") tg-emoji(emoji-id), and the character references
// &lt; &gt; &amp; &quot; and &#…; . Unlike Telegram, a bare "&" is an error.
func parseHTML(src string) (formatted, error) {
	p := htmlParser{src: src}
	if err := p.run(); err != nil {
		return formatted{}, err
	}
	return formatted{text: p.out.String(), entities: encodeEntities(p.entities)}, nil
}

// htmlTags lists the supported tags, space-separated with spaces around.
const htmlTags = " b strong i em u ins s strike del tg-spoiler a pre code blockquote span tg-emoji "

type htmlParser struct {
	src      string
	pos      int // byte offset in src
	out      strings.Builder
	units    int // UTF-16 length of out
	open     []openTag
	entities []entity
}

type openTag struct {
	name  string
	start int    // UTF-16 offset of the content
	from  int    // byte offset of the content in out
	ent   entity // emitted on close; Type "" emits nothing
}

func (p *htmlParser) run() error {
	for p.pos < len(p.src) {
		var err error
		switch p.src[p.pos] {
		case '<':
			err = p.tag()
		case '&':
			err = p.charRef()
		default:
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			p.emit(r)
			p.pos += size
		}
		if err != nil {
			return err
		}
	}
	if n := len(p.open); n > 0 {
		return fmt.Errorf("Can't find end tag corresponding to start tag %q", p.open[n-1].name)
	}
	return nil
}

func (p *htmlParser) emit(r rune) {
	p.out.WriteRune(r)
	p.units += max(utf16.RuneLen(r), 1)
}

func (p *htmlParser) charRef() error {
	r, size := decodeCharRef(p.src[p.pos:])
	if size == 0 {
		return fmt.Errorf("Unsupported HTML entity at byte offset %d (the fake requires \"&\" to be escaped as \"&amp;\")", p.pos)
	}
	p.emit(r)
	p.pos += size
	return nil
}

// decodeCharRef decodes &lt; &gt; &amp; &quot; or &#N; / &#xH; at the start
// of s, returning the rune and the bytes used, or 0, 0.
func decodeCharRef(s string) (rune, int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 10 {
		return 0, 0
	}
	switch name := s[1:end]; name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "quot":
		return '"', end + 1
	default:
		if r, ok := codePoint(name); ok {
			return r, end + 1
		}
	}
	return 0, 0
}

// codePoint parses "#123" or "#x7B" into a valid non-zero rune.
func codePoint(ref string) (rune, bool) {
	num, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return 0, false
	}
	base := 10
	if hex, ok := strings.CutPrefix(strings.ToLower(num), "x"); ok {
		num, base = hex, 16
	}
	n, err := strconv.ParseUint(num, base, 32)
	if err != nil || n == 0 || !utf8.ValidRune(rune(n)) {
		return 0, false
	}
	return rune(n), true
}

func (p *htmlParser) tag() error {
	if strings.HasPrefix(p.src[p.pos:], "</") {
		return p.endTag()
	}
	begin := p.pos
	p.pos++
	name := strings.ToLower(p.until(" \t\n\r>"))
	if p.pos >= len(p.src) {
		return fmt.Errorf("Unclosed start tag at byte offset %d", begin)
	}
	if !strings.Contains(htmlTags, " "+name+" ") {
		return fmt.Errorf("Unsupported start tag %q at byte offset %d", name, begin)
	}
	attrs, err := p.attributes(name, begin)
	if err != nil {
		return err
	}
	ent, err := p.entityFor(name, attrs, begin)
	if err != nil {
		return err
	}
	p.open = append(p.open, openTag{name: name, start: p.units, from: p.out.Len(), ent: ent})
	return nil
}

// attributes reads name=value pairs up to and including '>'. A name
// without a value (such as expandable) maps to "".
func (p *htmlParser) attributes(tag string, begin int) (map[string]string, error) {
	attrs := map[string]string{}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("Unclosed start tag at byte offset %d", begin)
		}
		if p.src[p.pos] == '>' {
			p.pos++
			return attrs, nil
		}
		key := strings.ToLower(p.until(" \t\n\r=>"))
		if key == "" {
			return nil, fmt.Errorf("Empty attribute name in the tag %q at byte offset %d", tag, begin)
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '=' {
			attrs[key] = ""
			continue
		}
		p.pos++
		p.skipSpace()
		value, err := p.attrValue(begin)
		if err != nil {
			return nil, err
		}
		attrs[key] = value
	}
}

// attrValue reads a quoted string (with character references) or a bare
// name token.
func (p *htmlParser) attrValue(begin int) (string, error) {
	if p.pos >= len(p.src) {
		return "", fmt.Errorf("Unclosed start tag at byte offset %d", begin)
	}
	quote := p.src[p.pos]
	if quote != '"' && quote != '\'' {
		return p.nameToken()
	}
	var b strings.Builder
	for p.pos++; p.pos < len(p.src) && p.src[p.pos] != quote; {
		if r, n := decodeCharRef(p.src[p.pos:]); n > 0 {
			b.WriteRune(r)
			p.pos += n
			continue
		}
		b.WriteByte(p.src[p.pos])
		p.pos++
	}
	if p.pos >= len(p.src) {
		return "", fmt.Errorf("Unclosed start tag at byte offset %d", begin)
	}
	p.pos++
	return b.String(), nil
}

func (p *htmlParser) nameToken() (string, error) {
	start := p.pos
	for p.pos < len(p.src) && isNameTokenByte(p.src[p.pos]) {
		p.pos++
	}
	if p.pos < len(p.src) && !isHTMLSpace(p.src[p.pos]) && p.src[p.pos] != '>' {
		return "", fmt.Errorf("Unexpected end of name token at byte offset %d", start)
	}
	return strings.ToLower(p.src[start:p.pos]), nil
}

// entityFor maps a start tag to the entity it opens.
func (p *htmlParser) entityFor(name string, attrs map[string]string, begin int) (entity, error) {
	switch name {
	case "b", "strong":
		return entity{Type: "bold"}, nil
	case "i", "em":
		return entity{Type: "italic"}, nil
	case "u", "ins":
		return entity{Type: "underline"}, nil
	case "s", "strike", "del":
		return entity{Type: "strikethrough"}, nil
	case "tg-spoiler":
		return entity{Type: "spoiler"}, nil
	case "a":
		return entity{Type: "text_link", URL: attrs["href"]}, nil
	case "pre":
		return entity{Type: "pre"}, nil
	case "code":
		return p.codeEntity(attrs), nil
	case "blockquote":
		return blockquoteEntity(attrs), nil
	case "span":
		if attrs["class"] != "tg-spoiler" {
			return entity{}, fmt.Errorf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
		}
		return entity{Type: "spoiler"}, nil
	case "tg-emoji":
		return customEmojiEntity(attrs)
	}
	return entity{}, fmt.Errorf("Unsupported start tag %q at byte offset %d", name, begin)
}

// codeEntity: <code> directly inside <pre> only names the block's language.
func (p *htmlParser) codeEntity(attrs map[string]string) entity {
	n := len(p.open)
	if n == 0 || p.open[n-1].name != "pre" {
		return entity{Type: "code"}
	}
	if lang, ok := strings.CutPrefix(attrs["class"], "language-"); ok {
		p.open[n-1].ent.Language = lang
	}
	return entity{}
}

func blockquoteEntity(attrs map[string]string) entity {
	if _, ok := attrs["expandable"]; ok {
		return entity{Type: "expandable_blockquote"}
	}
	return entity{Type: "blockquote"}
}

func customEmojiEntity(attrs map[string]string) (entity, error) {
	id := attrs["emoji-id"]
	if n, err := strconv.ParseInt(id, 10, 64); err != nil || n == 0 {
		return entity{}, errors.New("Invalid custom emoji identifier specified")
	}
	return entity{Type: "custom_emoji", CustomEmojiID: id}, nil
}

func (p *htmlParser) endTag() error {
	begin := p.pos
	if len(p.open) == 0 {
		return fmt.Errorf("Unexpected end tag at byte offset %d", begin)
	}
	p.pos += 2
	name := strings.ToLower(p.until(" \t\n\r>"))
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != '>' {
		return fmt.Errorf("Unclosed end tag at byte offset %d", begin)
	}
	p.pos++
	top := p.open[len(p.open)-1]
	if name != "" && name != top.name {
		return fmt.Errorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, top.name, name)
	}
	p.open = p.open[:len(p.open)-1]
	p.close(top)
	return nil
}

// close emits the entity of a closed tag unless it is empty.
func (p *htmlParser) close(t openTag) {
	e := t.ent
	if e.Type == "text_link" { // a link without href links to its text
		e = linkEntity(cmp.Or(e.URL, p.out.String()[t.from:]))
	}
	e.Offset, e.Length = t.start, p.units-t.start
	if e.Type == "" || e.Length == 0 {
		return
	}
	p.entities = append(p.entities, e)
}

// until advances to the next byte in stops (or the end) and returns what
// it passed.
func (p *htmlParser) until(stops string) string {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte(stops, p.src[p.pos]) < 0 {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *htmlParser) skipSpace() {
	for p.pos < len(p.src) && isHTMLSpace(p.src[p.pos]) {
		p.pos++
	}
}

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameTokenByte(c byte) bool {
	return c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
