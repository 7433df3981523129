package bot

import (
	"strconv"
	"strings"
)

// turnData is the data of a button about turn update in chat — ⏹, 🔄 or
// 🔍 — as prefix, then both ids in decimal: "s1:<update>:<chat>".
func turnData(prefix string, update, chat int64) string {
	return prefix + strconv.FormatInt(update, 10) + ":" + strconv.FormatInt(chat, 10)
}

// parseTurnData reads data turnData wrote with prefix. Only that one form
// is read: decimal numbers without signs or leading zeros that are not
// needed, a positive update id and a chat id other than zero.
func parseTurnData(prefix, data string) (update, chat int64, ok bool) {
	rest, found := strings.CutPrefix(data, prefix)
	u, c, two := strings.Cut(rest, ":")
	if !found || !two {
		return 0, 0, false
	}
	update, err1 := strconv.ParseInt(u, 10, 64)
	chat, err2 := strconv.ParseInt(c, 10, 64)
	if err1 != nil || err2 != nil || update <= 0 || chat == 0 || turnData(prefix, update, chat) != data {
		return 0, 0, false
	}
	return update, chat, true
}
