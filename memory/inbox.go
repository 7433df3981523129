package memory

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Update states.
const (
	StatePending    = "pending"
	StateProcessing = "processing"
	StateDone       = "done"
	StateFailed     = "failed"
)

// InboxUpdate is a Telegram update as it arrived, with what the inbox needs to
// order it.
type InboxUpdate struct {
	ID     int64
	ChatID int64 // 0 when the update names no chat
	Kind   string
	Raw    json.RawMessage
}

// Claim is an update taken for processing.
type Claim struct {
	Raw      json.RawMessage
	Attempts int // including this one
}

// StoreUpdates stores a batch of updates in one transaction. An update already
// in the inbox, finished or not, is left as it is: Telegram may deliver an
// update again when it did not hear that it arrived.
func (db *DB) StoreUpdates(ctx context.Context, batch []InboxUpdate) error {
	return db.tx(ctx, "store updates", func(tx pgx.Tx) error {
		rows := &pgx.Batch{}
		for _, u := range batch {
			rows.Queue(`insert into updates (update_id, chat_id, kind, raw, received_at)
				values ($1, nullif($2::bigint, 0), $3, $4, $5) on conflict (update_id) do nothing`,
				u.ID, u.ChatID, u.Kind, u.Raw, db.Now())
		}
		return tx.SendBatch(ctx, rows).Close()
	})
}

// Unfinished returns the updates that are pending or were being processed
// when the last process stopped, oldest first.
func (db *DB) Unfinished(ctx context.Context) ([]InboxUpdate, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select update_id, coalesce(chat_id, 0), kind
		from updates where state in ('pending', 'processing') order by update_id`)
	if err != nil {
		return nil, db.fail("unfinished updates", err)
	}
	all, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (InboxUpdate, error) {
		var u InboxUpdate
		return u, row.Scan(&u.ID, &u.ChatID, &u.Kind)
	})
	if err != nil {
		return nil, db.fail("unfinished updates", err)
	}
	return all, nil
}

// ClaimUpdate marks an update as being processed and counts the attempt. It
// returns ok false when the update is already done or failed, so a finished
// update is never processed twice.
func (db *DB) ClaimUpdate(ctx context.Context, id int64) (c Claim, ok bool, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err = db.pool.QueryRow(ctx, `update updates
		set state = 'processing', attempts = attempts + 1, started_at = $2
		where update_id = $1 and state in ('pending', 'processing')
		returning raw, attempts`, id, db.Now()).Scan(&c.Raw, &c.Attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, db.fail("claim update", err)
	}
	return c, true, nil
}

// FinishUpdate marks an update done or failed, with the reason it failed. It
// changes only an update still being processed.
func (db *DB) FinishUpdate(ctx context.Context, id int64, state, reason string) error {
	return db.tx(ctx, "finish update", func(tx pgx.Tx) error {
		return finishUpdate(ctx, tx, id, state, reason, db.Now())
	})
}

func finishUpdate(ctx context.Context, tx pgx.Tx, id int64, state, reason string, now any) error {
	_, err := tx.Exec(ctx, `update updates set state = $2, error = $3, finished_at = $4
		where update_id = $1 and state in ('pending', 'processing')`, id, state, reason, now)
	return err
}

// UpdateState returns an update's state and how often it was started.
func (db *DB) UpdateState(ctx context.Context, id int64) (state string, attempts int, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err = db.pool.QueryRow(ctx, "select state, attempts from updates where update_id = $1", id).Scan(&state, &attempts)
	if err != nil {
		return "", 0, db.fail("update state", err)
	}
	return state, attempts, nil
}
