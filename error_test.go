package ryo_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ryo-bot/ryo"
)

// One kind of error says a dependency is out of reach, and which: the
// database, Telegram or the model server, however deep it is wrapped.
func TestUnavailableNamesItsDependency(t *testing.T) {
	cause := errors.New("connection refused")
	db := fmt.Errorf("claim update: %w", ryo.Unavailable(ryo.Database, cause))
	tg := fmt.Errorf("telegram sendMessage: %w", ryo.Unavailable(ryo.Telegram, cause))
	model := &ryo.Error{Code: ryo.EUNAVAILABLE, Of: ryo.Model, Message: "I can't reach the model server right now.", Err: cause}
	for _, c := range []struct {
		err  error
		of   ryo.Dependency
		want bool
	}{
		{db, ryo.Database, true}, {db, ryo.Telegram, false},
		{tg, ryo.Telegram, true}, {tg, ryo.Database, false},
		{fmt.Errorf("turn: %w", model), ryo.Model, true}, {model, ryo.Database, false},
		{&ryo.Error{Code: ryo.ETIMEOUT, Of: ryo.Model, Err: db}, ryo.Database, true}, // a timeout caused by the database
		{cause, ryo.Database, false}, {nil, ryo.Database, false},
	} {
		if got := ryo.IsUnavailable(c.err, c.of); got != c.want {
			t.Errorf("IsUnavailable(%v, %s) = %v; want %v", c.err, c.of, got, c.want)
		}
	}
	if !errors.Is(db, cause) || ryo.ErrorCode(db) != ryo.EUNAVAILABLE {
		t.Fatalf("%v lost its cause or its code", db)
	}
	if got := db.Error(); got != "claim update: unavailable: database unavailable: connection refused" {
		t.Fatalf("Error() = %q", got)
	}
}
