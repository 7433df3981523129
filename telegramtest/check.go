package telegramtest

import (
	"encoding/json"
	"unicode/utf16"
)

// CheckHTML parses text sent with parse_mode=HTML as Telegram does and
// returns what the person would see, or the error Telegram would answer
// ("can't parse entities: ..."). Tests of other packages use it as the
// oracle for the HTML they produce. Like the rest of the fake it is
// stricter than Telegram: a bare "&" is an error.
func CheckHTML(text string) (display string, err error) {
	display, _, err = ParseHTML(text)
	return display, err
}

// ParseHTML is CheckHTML with the entities Telegram makes of the markup.
func ParseHTML(text string) (display string, entities []Entity, err error) {
	f, err := parseHTML(text)
	if err != nil {
		return "", nil, badRequest("can't parse entities: %v", err)
	}
	entities, err = decodeEntities(f.entities)
	return f.text, entities, err
}

// CheckMessageHTML is CheckHTML with what sendMessage checks besides: a
// text that is valid UTF-8, not blank and at most 4096 UTF-16 units after
// parsing. It also returns how many entities the text has: Telegram shows
// the formatting of the first 100 only.
func CheckMessageHTML(text string) (display string, entities int, err error) {
	display, list, err := ParseMessageHTML(text)
	return display, len(list), err
}

// ParseMessageHTML is CheckMessageHTML with the entities themselves.
func ParseMessageHTML(text string) (display string, entities []Entity, err error) {
	f, err := formatText(text, "HTML", "", false)
	if err != nil {
		return "", nil, err
	}
	entities, err = decodeEntities(f.entities)
	return f.text, entities, err
}

// Entity is a MessageEntity as Telegram shows it in a message. Offset and
// Length count UTF-16 code units.
type Entity struct {
	Type   string // bold, text_link, text_mention, code, ...
	Offset int
	Length int
	URL    string // a text_link's
	UserID int64  // the person a text_mention mentions
}

// In is the part of a message's text the entity covers.
func (e Entity) In(text string) string {
	units := utf16.Encode([]rune(text))
	from, to := min(e.Offset, len(units)), min(e.Offset+e.Length, len(units))
	return string(utf16.Decode(units[from:to]))
}

// Entities is the formatting of the message's text or caption as Telegram
// shows it, after parse_mode.
func (m Message) Entities() []Entity {
	var v struct {
		Entities        json.RawMessage `json:"entities"`
		CaptionEntities json.RawMessage `json:"caption_entities"`
	}
	if json.Unmarshal(m.Raw, &v) != nil {
		return nil
	}
	list, _ := decodeEntities(v.Entities)
	caption, _ := decodeEntities(v.CaptionEntities)
	return append(list, caption...)
}

func decodeEntities(data json.RawMessage) ([]Entity, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var list []entity
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	out := make([]Entity, len(list))
	for i, e := range list {
		out[i] = Entity{Type: e.Type, Offset: e.Offset, Length: e.Length, URL: e.URL}
		if e.User != nil {
			out[i].UserID = e.User.ID
		}
	}
	return out, nil
}
