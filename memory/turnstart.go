package memory

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// TurnStart is what a message meant for the bot finds as its turn begins,
// read in one round trip: its sender as stored now, what earlier runs of
// the turn left, the sender's later messages waiting, the chat's settings
// and the sender's quota standing. Each is what its own read returns
// (SaveUser, Turn, LaterFrom, TurnSettings, QuotaStandingOf); the bot uses
// what its way through the turn needs.
type TurnStart struct {
	Sender   ryo.User
	Prior    Turn
	Later    []json.RawMessage
	Settings TurnSettings
	Standing QuotaStanding
}

// StartTurn stores sender as SaveUser does, and reads the rest of
// TurnStart for the message of update id in chat, with at most later of
// its sender's messages after it: one round trip, one transaction, the
// reads seeing the sender stored.
func (db *DB) StartTurn(ctx context.Context, sender ryo.User, chat, id int64, later int) (TurnStart, error) {
	var s TurnStart
	err := db.batch(ctx, "start turn", func(b *pgx.Batch) {
		s.Sender = sender
		queueUser(b, &s.Sender, false, db.Now())
		queueTurn(b, id, &s.Prior)
		queueLater(b, chat, sender.ID, id, later, &s.Later)
		queueTurnSettings(b, chat, &s.Settings)
		queueQuotaStanding(b, sender.ID, &s.Standing)
	})
	return s, err
}

// TurnOpening is what a turn answering a message does once its person
// passed the quota check: it stores their message, when it is not stored
// yet, as SaveStartedMessage does; takes the tool they chose
// (TakeForcedTool); and reads the history (History), the message in it.
type TurnOpening struct {
	Chat     ryo.Chat
	Message  *ryo.Message // the message to store; nil when it is stored already
	Person   int64
	Place    ryo.Place
	UpdateID int64
	Limit    int // the history's (History)
}

// OpenedTurn is what OpenTurn did and found.
type OpenedTurn struct {
	Stored  ryo.Message // the message stored, with its row id; zero when none was given
	Forced  string      // the tool taken; "" when none
	History []ryo.Message
}

// OpenTurn does what o says in one round trip, as one transaction.
func (db *DB) OpenTurn(ctx context.Context, o TurnOpening) (OpenedTurn, error) {
	var out OpenedTurn
	err := db.batch(ctx, "open turn", func(b *pgx.Batch) {
		now := db.Now()
		out.Stored = ryo.Message{}
		if o.Message != nil {
			out.Stored = *o.Message
			queueChat(b, o.Chat, now)
			queuePlace(b, o.Message.Place, now)
			queueMessage(b, &out.Stored, now, false)
		}
		queueTakeForcedTool(b, o.Person, o.Place, o.UpdateID, now, &out.Forced)
		queueHistory(b, o.Place, o.Limit, &out.History)
	})
	return out, err
}
