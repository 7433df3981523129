package telegramtest

import "encoding/json"

// CheckHTML parses text sent with parse_mode=HTML as Telegram does and
// returns what the person would see, or the error Telegram would answer
// ("can't parse entities: ..."). Tests of other packages use it as the
// oracle for the HTML they produce. Like the rest of the fake it is
// stricter than Telegram: a bare "&" is an error.
func CheckHTML(text string) (display string, err error) {
	f, err := parseHTML(text)
	if err != nil {
		return "", badRequest("can't parse entities: %v", err)
	}
	return f.text, nil
}

// CheckMessageHTML is CheckHTML with what sendMessage checks besides: a
// text that is valid UTF-8, not blank and at most 4096 UTF-16 units after
// parsing. It also returns how many entities the text has: Telegram shows
// the formatting of the first 100 only.
func CheckMessageHTML(text string) (display string, entities int, err error) {
	f, err := formatText(text, "HTML", "", false)
	if err != nil {
		return "", 0, err
	}
	var list []entity
	if len(f.entities) > 0 {
		if err := json.Unmarshal(f.entities, &list); err != nil {
			return "", 0, err
		}
	}
	return f.text, len(list), nil
}
