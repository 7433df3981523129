package memory

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// Turn is what earlier runs of an update left behind.
type Turn struct {
	StatusMessageID int             // the message posted for the update (status or reply); 0 when none
	Answer          string          // "" when the model had not answered
	AnswerMetadata  json.RawMessage // with Answer
	Parts           []int           // messages that carry the answer, the first part first
	CreatedAt       time.Time       // when the turn first showed something; zero when it had not
}

// Turn returns what earlier runs of the turn answering updateID left: its
// status message and the model's answer, when they got that far.
func (db *DB) Turn(ctx context.Context, updateID int64) (Turn, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var status *int64
	var answer *string
	var parts []int64
	var t Turn
	err := db.pool.QueryRow(ctx, `select status_message_id, answer, answer_metadata, part_message_ids, created_at
		from turns where update_id = $1`, updateID).Scan(&status, &answer, &t.AnswerMetadata, &parts, &t.CreatedAt)
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
	for _, p := range parts {
		t.Parts = append(t.Parts, int(p))
	}
	return t, nil
}

// SaveTurnParts remembers which messages carry the answer so far, so that
// a resumed delivery does not send a part twice.
func (db *DB) SaveTurnParts(ctx context.Context, updateID int64, ids []int) error {
	parts := make([]int64, len(ids))
	for i, id := range ids {
		parts[i] = int64(id)
	}
	return db.exec(ctx, "save answer parts", `update turns set part_message_ids = $2, updated_at = $3 where update_id = $1`,
		updateID, parts, db.Now())
}

// SaveTurnStatus remembers the status message of the turn answering updateID.
func (db *DB) SaveTurnStatus(ctx context.Context, updateID int64, place ryo.Place, messageID int) error {
	return db.exec(ctx, "save turn status", `insert into turns (update_id, chat_id, thread_id, status_message_id, updated_at)
		values ($1, $2, $3, $4, $5)
		on conflict (update_id) do update set status_message_id = excluded.status_message_id, updated_at = excluded.updated_at`,
		updateID, place.ChatID, place.Thread, messageID, db.Now())
}

// SaveTurnAnswer remembers the model's answer before it is delivered, so
// that a turn interrupted while delivering delivers the same answer again
// instead of asking the model anew.
func (db *DB) SaveTurnAnswer(ctx context.Context, updateID int64, place ryo.Place, answer string, meta json.RawMessage) error {
	return db.tx(ctx, "save turn answer", func(tx pgx.Tx) error {
		return saveTurnAnswer(ctx, tx, updateID, place, answer, meta, db.Now())
	})
}

func saveTurnAnswer(ctx context.Context, tx pgx.Tx, updateID int64, place ryo.Place, answer string, meta json.RawMessage, now time.Time) error {
	_, err := tx.Exec(ctx, `insert into turns (update_id, chat_id, thread_id, answer, answer_metadata, updated_at)
		values ($1, $2, $3, $4, $5, $6)
		on conflict (update_id) do update set answer = excluded.answer, answer_metadata = excluded.answer_metadata,
			updated_at = excluded.updated_at`,
		updateID, place.ChatID, place.Thread, storableText(answer), storable(meta), now)
	if err != nil {
		return err
	}
	// The tool the person chose for this turn has served.
	_, err = tx.Exec(ctx, `delete from forced_tools where used_by = $1::bigint`, updateID)
	return err
}

// FinishTurn stores the bot's answer with its tags and marks its update
// done, in one transaction: either all of it happens or none does. An
// answer stored already (SaveAnswer) is kept as it is.
func (db *DB) FinishTurn(ctx context.Context, answer ryo.Message, tags []string) (ryo.Message, error) {
	err := db.tx(ctx, "finish turn", func(tx pgx.Tx) error {
		var err error
		if answer, err = saveAnswer(ctx, tx, answer, tags, db.Now()); err != nil {
			return err
		}
		return finishUpdate(ctx, tx, answer.UpdateID, StateDone, "", db.Now())
	})
	return answer, err
}

// SaveAnswer stores the bot's delivered answer with its tags before its
// turn is done: an answer that asks for a yes is stored before the buttons
// that give it are shown, so that the conversation a press goes on with
// has the answer before the tool's result. Storing it again (FinishTurn)
// changes nothing.
func (db *DB) SaveAnswer(ctx context.Context, answer ryo.Message, tags []string) (ryo.Message, error) {
	err := db.tx(ctx, "save answer", func(tx pgx.Tx) error {
		var err error
		answer, err = saveAnswer(ctx, tx, answer, tags, db.Now())
		return err
	})
	return answer, err
}

func saveAnswer(ctx context.Context, tx pgx.Tx, answer ryo.Message, tags []string, now time.Time) (ryo.Message, error) {
	answer, err := insertMessage(ctx, tx, answer, now, false)
	if err != nil {
		return answer, err
	}
	return answer, saveTags(ctx, tx, answer.ID, tags)
}
