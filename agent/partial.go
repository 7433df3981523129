package agent

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// partialReply reads the "reply" string out of an envelope while the model
// is still writing it, one piece of the stream at a time, so the person can
// watch the answer grow. It skips whatever comes before the first '{' (a
// code fence, a sentence), follows strings and nesting to find the
// top-level "reply" key, and decodes its value as far as it has arrived,
// escapes included; an escape cut in the middle waits for the next piece.
// It only ever appends: what it has read is a prefix of the final reply.
type partialReply struct {
	reply strings.Builder
	cut   []byte // the start of a character split between pieces

	depth     int             // nesting of objects and arrays
	inString  bool            //
	escape    bool            // after a backslash
	hex       []byte          // digits of a \u escape so far
	high      rune            // a pending high surrogate
	pendingKV bool            // at depth 1, the next string is a key
	key       strings.Builder // the top-level key being read
	keyString bool            // the string being read is a top-level key
	lastKey   string          // the last top-level key read
	inReply   bool            // the string being read is the reply
	done      bool            // the reply string ended
}

// feed reads the next piece of the stream and reports whether the reply
// grew.
func (p *partialReply) feed(piece string) bool {
	before := p.reply.Len()
	if len(p.cut) > 0 {
		piece = string(p.cut) + piece
		p.cut = nil
	}
	for i := 0; i < len(piece); {
		if !utf8.FullRuneInString(piece[i:]) {
			p.cut = []byte(piece[i:])
			break
		}
		r, size := utf8.DecodeRuneInString(piece[i:])
		i += size
		if p.inString {
			p.stringRune(r)
			continue
		}
		p.structural(r)
	}
	return p.reply.Len() > before
}

func (p *partialReply) text() string { return p.reply.String() }

// structural handles a rune outside strings.
func (p *partialReply) structural(r rune) {
	switch r {
	case '{':
		p.depth++
		p.pendingKV = p.depth == 1
	case '[':
		if p.depth > 0 {
			p.depth++
		}
	case '}', ']':
		if p.depth > 0 {
			p.depth--
		}
	case ',':
		p.pendingKV = p.depth == 1
	case '"':
		if p.depth == 0 {
			return
		}
		p.inString = true
		p.keyString = p.depth == 1 && p.pendingKV
		p.inReply = p.depth == 1 && !p.pendingKV && p.lastKey == "reply" && !p.done
		p.pendingKV = false
		p.key.Reset()
	}
}

// stringRune handles a rune inside a string.
func (p *partialReply) stringRune(r rune) {
	switch {
	case p.hex != nil:
		p.hexDigit(r)
	case p.escape:
		p.escape = false
		p.escaped(r)
	case r == '\\':
		p.escape = true
	case r == '"':
		p.endString()
	default:
		p.emit(r)
	}
}

func (p *partialReply) escaped(r rune) {
	switch r {
	case 'n':
		p.emit('\n')
	case 't':
		p.emit('\t')
	case 'r':
		p.emit('\r')
	case 'b':
		p.emit('\b')
	case 'f':
		p.emit('\f')
	case 'u':
		p.hex = make([]byte, 0, 4)
	default: // \" \\ \/ and anything a lenient writer escaped
		p.emit(r)
	}
}

func (p *partialReply) hexDigit(r rune) {
	if !isHex(r) {
		p.hex = nil
		p.emit(utf8.RuneError)
		p.stringRune(r)
		return
	}
	p.hex = append(p.hex, byte(r))
	if len(p.hex) < 4 {
		return
	}
	var v rune
	for _, h := range p.hex {
		v = v<<4 | hexValue(h)
	}
	p.hex = nil
	p.emit(v)
}

func (p *partialReply) endString() {
	if p.keyString {
		p.lastKey = p.key.String()
	}
	if p.inReply {
		p.done = true
		p.flushHigh()
	}
	p.inString, p.keyString, p.inReply = false, false, false
}

// emit adds a decoded rune to the key or the reply, pairing surrogates.
func (p *partialReply) emit(r rune) {
	switch {
	case p.keyString:
		p.key.WriteRune(r)
	case !p.inReply:
	case utf16.IsSurrogate(r) && r < 0xdc00:
		p.flushHigh()
		p.high = r
	case utf16.IsSurrogate(r) && p.high != 0:
		p.reply.WriteRune(utf16.DecodeRune(p.high, r))
		p.high = 0
	default:
		p.flushHigh()
		p.reply.WriteRune(r)
	}
}

// flushHigh writes a high surrogate that no low one followed.
func (p *partialReply) flushHigh() {
	if p.high != 0 {
		p.reply.WriteRune(utf8.RuneError)
		p.high = 0
	}
}

func isHex(r rune) bool {
	return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F'
}

func hexValue(h byte) rune {
	switch {
	case h <= '9':
		return rune(h - '0')
	case h >= 'a':
		return rune(h-'a') + 10
	}
	return rune(h-'A') + 10
}
