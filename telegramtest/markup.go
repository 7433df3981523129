package telegramtest

import (
	"encoding/json"
	"net/url"
	"strings"
)

// maxCallbackData is Telegram's limit on callback_data, in bytes.
const maxCallbackData = 64

// readMarkup checks a reply_markup parameter and returns it as sent. For
// inline keyboards it applies Telegram's button rules; the empty copy_text
// go-telegram/bot puts in every button is allowed, as Telegram allows it.
func readMarkup(raw string) (json.RawMessage, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &fields) != nil {
		return nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	if kb, ok := fields["inline_keyboard"]; ok {
		if err := checkInlineKeyboard(kb); err != nil {
			return nil, err
		}
	}
	return json.RawMessage(raw), nil
}

func checkInlineKeyboard(raw json.RawMessage) error {
	var rows [][]map[string]json.RawMessage
	if json.Unmarshal(raw, &rows) != nil {
		return badRequest("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
	}
	for _, row := range rows {
		for _, button := range row {
			if err := checkButton(button); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkButton(button map[string]json.RawMessage) error {
	var data string
	if raw, ok := button["callback_data"]; ok {
		if json.Unmarshal(raw, &data) != nil || len(data) == 0 || len(data) > maxCallbackData {
			return badRequest("BUTTON_DATA_INVALID")
		}
	}
	if raw, ok := button["url"]; ok {
		if err := checkButtonURL(raw); err != nil {
			return err
		}
	}
	if buttonActions(button) == 0 {
		return badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
	}
	return nil
}

// checkButtonURL applies Telegram's rules to a url button's link: an
// http(s) address whose host has a dot (a link without a scheme is taken
// as http), or a tg:// link.
func checkButtonURL(raw json.RawMessage) error {
	var link string
	if json.Unmarshal(raw, &link) != nil {
		return badRequest(`can't parse inline keyboard button: Field "url" must be of type String`)
	}
	full := link
	if !strings.Contains(link, "://") {
		full = "http://" + link
	}
	u, err := url.Parse(full)
	switch {
	case err != nil:
		return badRequest("inline keyboard button URL '%s' is invalid: Wrong HTTP URL", link)
	case u.Scheme == "tg":
		return nil
	case u.Scheme != "http" && u.Scheme != "https":
		return badRequest("inline keyboard button URL '%s' is invalid: Unsupported URL protocol", link)
	case !strings.Contains(u.Hostname(), "."):
		return badRequest("inline keyboard button URL '%s' is invalid: Wrong HTTP URL", link)
	}
	return nil
}

// buttonActions counts the fields that give a button something to do.
func buttonActions(button map[string]json.RawMessage) int {
	n := 0
	for key, raw := range button {
		switch key {
		case "text", "style", "icon_custom_emoji_id":
		case "copy_text":
			var ct struct{ Text string }
			if json.Unmarshal(raw, &ct) == nil && ct.Text != "" {
				n++
			}
		default:
			n++
		}
	}
	return n
}

// sameMarkup compares two reply markups as Telegram does for "not
// modified": by content, with an empty inline keyboard equal to none.
func sameMarkup(a, b json.RawMessage) bool {
	return canonicalMarkup(a) == canonicalMarkup(b)
}

func canonicalMarkup(raw json.RawMessage) string {
	var v map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	if kb, ok := v["inline_keyboard"].([]any); ok && len(kb) == 0 && len(v) == 1 {
		return ""
	}
	data, _ := json.Marshal(v)
	return string(data)
}
