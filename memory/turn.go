package memory

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// Turn is what an earlier run of a turn left behind.
type Turn struct {
	StatusMessageID int             // 0 when no status message was posted
	Answer          string          // "" when the model had not answered
	AnswerMetadata  json.RawMessage // with Answer
}

// Turn returns what earlier runs of the turn answering updateID left: its
// status message and the model's answer, when they got that far.
func (db *DB) Turn(ctx context.Context, updateID int64) (Turn, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var status *int64
	var answer *string
	var t Turn
	err := db.pool.QueryRow(ctx, `select status_message_id, answer, answer_metadata from turns where update_id = $1`,
		updateID).Scan(&status, &answer, &t.AnswerMetadata)
	if errors.Is(err, pgx.ErrNoRows) {
		return Turn{}, nil
	}
	if err != nil {
		return Turn{}, db.fail("load turn", err)
	}
	if status != nil {
		t.StatusMessageID = int(*status)
	}
	if answer != nil {
		t.Answer = *answer
	}
	return t, nil
}

// SaveTurnStatus remembers the status message of the turn answering updateID.
func (db *DB) SaveTurnStatus(ctx context.Context, updateID int64, place ryo.Place, messageID int) error {
	return db.tx(ctx, "save turn status", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into turns (update_id, chat_id, thread_id, status_message_id, updated_at)
			values ($1, $2, $3, $4, $5)
			on conflict (update_id) do update set status_message_id = excluded.status_message_id, updated_at = excluded.updated_at`,
			updateID, place.ChatID, place.Thread, messageID, db.Now())
		return err
	})
}

// SaveTurnAnswer remembers the model's answer before it is delivered, so
// that a turn interrupted while delivering delivers the same answer again
// instead of asking the model anew.
func (db *DB) SaveTurnAnswer(ctx context.Context, updateID int64, place ryo.Place, answer string, meta json.RawMessage) error {
	return db.tx(ctx, "save turn answer", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into turns (update_id, chat_id, thread_id, answer, answer_metadata, updated_at)
			values ($1, $2, $3, $4, $5, $6)
			on conflict (update_id) do update set answer = excluded.answer, answer_metadata = excluded.answer_metadata,
				updated_at = excluded.updated_at`,
			updateID, place.ChatID, place.Thread, answer, meta, db.Now())
		return err
	})
}

// FinishTurn stores the bot's answer and marks its update done, in one
// transaction: either both happen or neither does.
func (db *DB) FinishTurn(ctx context.Context, answer ryo.Message) (ryo.Message, error) {
	err := db.tx(ctx, "finish turn", func(tx pgx.Tx) error {
		var err error
		if answer, err = insertMessage(ctx, tx, answer, db.Now()); err != nil {
			return err
		}
		return finishUpdate(ctx, tx, answer.UpdateID, StateDone, "", db.Now())
	})
	return answer, err
}
