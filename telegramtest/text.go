package telegramtest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxTextLen is Telegram's message limit in UTF-16 code units, measured on
// the text after entity parsing.
const maxTextLen = 4096

// formatted is text as the user sees it, with its entities as JSON.
type formatted struct {
	text     string
	entities json.RawMessage
}

// entity is a MessageEntity with UTF-16 offsets.
type entity struct {
	Type          string    `json:"type"`
	Offset        int       `json:"offset"`
	Length        int       `json:"length"`
	URL           string    `json:"url,omitempty"`
	User          *wireUser `json:"user,omitempty"` // text_mention; the fake knows only the id
	Language      string    `json:"language,omitempty"`
	CustomEmojiID string    `json:"custom_emoji_id,omitempty"`
}

// formatText applies parse_mode (or explicit entities) to text and checks
// it the way sendMessage does: valid UTF-8, markup, not blank, not too long.
func formatText(text, parseMode, entities string, allowEmpty bool) (formatted, error) {
	if !utf8.ValidString(text) {
		return formatted{}, badRequest("text must be encoded in UTF-8")
	}
	f, err := parseText(text, parseMode, entities)
	switch {
	case err != nil:
		return f, err
	case !allowEmpty && strings.TrimSpace(f.text) == "":
		return f, badRequest("message text is empty")
	case utf16Len(f.text) > maxTextLen:
		return f, badRequest("message is too long")
	}
	return f, nil
}

func parseText(text, parseMode, entities string) (formatted, error) {
	var f formatted
	var err error
	switch strings.ToLower(parseMode) {
	case "":
		return plainText(text, entities)
	case "html":
		f, err = parseHTML(text)
	case "markdownv2":
		f, err = parseMarkdownV2(text)
	case "markdown":
		return formatted{text: text}, nil // legacy Markdown is not interpreted
	default:
		return f, badRequest("unsupported parse_mode")
	}
	if err != nil {
		return f, badRequest("can't parse entities: %v", err)
	}
	return f, nil
}

// plainText is text without parse_mode, with entities given as JSON.
func plainText(text, entities string) (formatted, error) {
	f := formatted{text: text}
	if strings.TrimSpace(entities) == "" {
		return f, nil
	}
	var list []json.RawMessage
	if json.Unmarshal([]byte(entities), &list) != nil {
		return f, badRequest("can't parse entities JSON object")
	}
	if len(list) > 0 {
		var buf bytes.Buffer
		json.Compact(&buf, []byte(entities))
		f.entities = buf.Bytes()
	}
	return f, nil
}

// encodeEntities sorts entities the way Telegram does (by offset, outer
// first) and encodes them; none encodes to nil.
func encodeEntities(list []entity) json.RawMessage {
	if len(list) == 0 {
		return nil
	}
	slices.SortStableFunc(list, func(a, b entity) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return b.Length - a.Length
	})
	data, _ := json.Marshal(list)
	return data
}

func sameFormatted(a, b formatted) bool {
	return a.text == b.text && bytes.Equal(a.entities, b.entities)
}

// utf16Len is the length of s in UTF-16 code units, Telegram's unit for
// lengths and entity offsets.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}
