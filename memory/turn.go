package memory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// TurnStatus returns the status message a turn posted before, or 0 when the
// turn has not posted one yet.
func (db *DB) TurnStatus(ctx context.Context, updateID int64) (int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var id *int64
	err := db.pool.QueryRow(ctx, "select status_message_id from turns where update_id = $1", updateID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && id == nil) {
		return 0, nil
	}
	if err != nil {
		return 0, db.fail("turn status", err)
	}
	return int(*id), nil
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
