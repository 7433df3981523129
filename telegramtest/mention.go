package telegramtest

import (
	"strconv"
	"strings"
)

// linkEntity is the entity a link to url becomes. Telegram reads a link
// to a person, tg://user?id=N, as a mention of that person (text_mention,
// which notifies them) and any other as a text_link.
func linkEntity(url string) entity {
	if id, ok := linkUserID(url); ok {
		return entity{Type: "text_mention", User: &wireUser{ID: id}}
	}
	return entity{Type: "text_link", URL: url}
}

// maxUserID bounds the ids Telegram takes for people (2⁴⁰-1).
const maxUserID = 1<<40 - 1

// linkUserID is the person a link names, following TDLib's
// LinkManager::get_link_user_id: in the lower-cased URL, "tg:", an
// optional "//", "user", an optional "/", then "?" and a query up to "#"
// whose first "id" parameter is the id. So TG://USER?ID=5, tg:user?id=5 and
// tg://user/?x=1&id=5#top all name person 5.
func linkUserID(url string) (int64, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(url), "tg:")
	if !ok {
		return 0, false
	}
	rest = strings.TrimPrefix(rest, "//")
	if rest, ok = strings.CutPrefix(rest, "user"); !ok {
		return 0, false
	}
	rest = strings.TrimPrefix(rest, "/")
	if rest, ok = strings.CutPrefix(rest, "?"); !ok {
		return 0, false
	}
	rest, _, _ = strings.Cut(rest, "#")
	for param := range strings.SplitSeq(rest, "&") {
		if key, value, _ := strings.Cut(param, "="); key == "id" {
			id, err := strconv.ParseInt(value, 10, 64)
			return id, err == nil && !strings.HasPrefix(value, "+") && id > 0 && id <= maxUserID
		}
	}
	return 0, false
}
