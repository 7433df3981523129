package bot

import (
	"testing"

	"github.com/ryo-bot/ryo"
)

// LoadShapes reads the update fixtures of dir, with the placeholders filled
// in; see fixtures_test.go.
func LoadShapes(tb testing.TB, dir string, fill map[string]string) map[string][]byte {
	return loadShapes(tb, dir, fill)
}

// Verdict says what the routing table makes of a raw update for the bot
// me: the verdict's name and why, and the fields it had to leave out.
func Verdict(me ryo.User, raw []byte) (verdict, why string, skipped []string, err error) {
	upd, skipped, err := decodeUpdate(raw)
	if err != nil {
		return "", "", nil, err
	}
	b := &Bot{me: me}
	r := b.classify(&upd)
	return r.what.String(), r.why, skipped, nil
}

// RefusedNotice is what the sender of an update the inbox refused is told.
const RefusedNotice = refusedNotice
