package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
)

// DeadStage is where an update's handling stopped.
type DeadStage string

// Dead-letter stages.
const (
	DeadAtStore   DeadStage = "store"   // the inbox could not store it
	DeadAtProcess DeadStage = "process" // its handling failed for good
)

// DeadLetter is an update ryo could not handle, kept until an admin retries
// it.
type DeadLetter struct {
	UpdateID int64
	ChatID   int64 // 0 when the update names no chat
	Kind     string
	Raw      []byte // as Telegram sent it, or as the inbox kept it
	Stage    DeadStage
	Error    string
	Attempts int // starts of its handling
	DiedAt   time.Time
	Retries  int // how often it was retried before
}

// bury keeps u, which the inbox refused, in the dead letter, and reports
// whether it is there for the first time: Telegram sends a batch again
// when a crash kept it from hearing that the batch arrived.
func bury(ctx context.Context, tx pgx.Tx, u InboxUpdate, reason string, now time.Time) (first bool, err error) {
	err = tx.QueryRow(ctx, `insert into dead_letters (update_id, chat_id, kind, raw, stage, error, died_at)
		values ($1, nullif($2::bigint, 0), $3, $4, 'store', $5, $6)
		on conflict (update_id) do update set raw = excluded.raw, stage = excluded.stage, error = excluded.error,
			died_at = excluded.died_at, retried_at = null
		returning xmax = 0`, // a row inserted, not updated
		u.ID, u.ChatID, storableText(u.Kind), []byte(u.Raw), storableText(reason), now).Scan(&first)
	return first, err
}

// BuryUnreadable keeps an update whose update_id cannot be read in the dead
// letter. It has no id of Telegram's to be kept under, so it gets one of
// its own: UnreadableID, negative (no Telegram update has one), the same
// every time Telegram sends the same bytes again. The letter is returned,
// with First false when it was there already.
func (db *DB) BuryUnreadable(ctx context.Context, raw json.RawMessage, reason string) (Refused, error) {
	u := InboxUpdate{ID: UnreadableID(raw), Kind: "unknown", Raw: raw}
	var first bool
	err := db.tx(ctx, "bury an unreadable update", func(tx pgx.Tx) (err error) {
		first, err = bury(ctx, tx, u, reason, db.Now())
		return err
	})
	return Refused{Update: u, Reason: reason, First: first}, err
}

// UnreadableID is the dead letter's key for an update without a readable
// update_id: below zero, from a hash of its bytes.
func UnreadableID(raw []byte) int64 {
	h := fnv.New64a()
	h.Write(raw)
	return -int64(h.Sum64()>>2) - 1
}

// FailUpdate marks an update still being processed as failed, with the
// reason, and keeps it in the dead letter, in one transaction.
func (db *DB) FailUpdate(ctx context.Context, id int64, reason string) error {
	reason = storableText(reason)
	return db.tx(ctx, "fail update", func(tx pgx.Tx) error {
		now := db.Now()
		tag, err := tx.Exec(ctx, `update updates set state = 'failed', error = $2, finished_at = $4
			where update_id = $1 and state in ('pending', 'processing') and `+leaseHeld, id, reason, db.fence(), now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			if db.fence() == "" {
				return nil
			}
			return stillUnfinished(ctx, tx, id)
		}
		_, err = tx.Exec(ctx, `insert into dead_letters (update_id, chat_id, kind, raw, stage, error, attempts, died_at)
			select update_id, chat_id, kind, convert_to(raw::text, 'UTF8'), 'process', $2, attempts, $3
			from updates where update_id = $1
			on conflict (update_id) do update set raw = excluded.raw, stage = excluded.stage, error = excluded.error,
				attempts = excluded.attempts, died_at = excluded.died_at, retried_at = null`, id, reason, now)
		return err
	})
}

const deadColumns = `update_id, coalesce(chat_id, 0), kind, raw, stage, error, attempts, died_at, retries`

func scanDead(row pgx.CollectableRow) (DeadLetter, error) {
	var d DeadLetter
	err := row.Scan(&d.UpdateID, &d.ChatID, &d.Kind, &d.Raw, &d.Stage, &d.Error, &d.Attempts, &d.DiedAt, &d.Retries)
	return d, err
}

// DeadLetters returns the updates waiting in the dead letter, newest first,
// from offset, and how many there are.
func (db *DB) DeadLetters(ctx context.Context, offset, limit int) ([]DeadLetter, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var total int
	if err := db.pool.QueryRow(ctx, `select count(*) from dead_letters where retried_at is null`).Scan(&total); err != nil {
		return nil, 0, db.fail("count dead letters", err)
	}
	rows, err := db.pool.Query(ctx, `select `+deadColumns+` from dead_letters where retried_at is null
		order by died_at desc, update_id desc offset $1 limit $2`, offset, limit)
	if err != nil {
		return nil, 0, db.fail("dead letters", err)
	}
	out, err := pgx.CollectRows(rows, scanDead)
	if err != nil {
		return nil, 0, db.fail("dead letters", err)
	}
	return out, total, nil
}

// ErrNotDead is returned by Revive for an update not waiting in the dead
// letter.
var ErrNotDead = errors.New("no such update in the dead letter")

// Revive gives a dead update another chance, and returns it to be run: one
// whose handling failed becomes pending again, its attempts counted anew;
// one the inbox could not store is stored now, as the inbox would store it
// today. An update the inbox still refuses stays in the dead letter with
// the new reason, which is returned as the error.
func (db *DB) Revive(ctx context.Context, id int64) (InboxUpdate, error) {
	var u InboxUpdate
	var refused string
	err := db.tx(ctx, "revive update", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `select `+deadColumns+` from dead_letters
			where update_id = $1 and retried_at is null for update`, id)
		if err != nil {
			return err
		}
		d, err := pgx.CollectExactlyOneRow(rows, scanDead)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotDead
		}
		if err != nil {
			return err
		}
		u = InboxUpdate{ID: d.UpdateID, ChatID: d.ChatID, Kind: d.Kind, Raw: json.RawMessage(d.Raw)}
		refused, err = revive(ctx, tx, d, db.Now())
		return err
	})
	switch {
	case errors.Is(err, ErrNotDead):
		return InboxUpdate{}, ErrNotDead
	case err != nil:
		return InboxUpdate{}, err
	case refused != "":
		return InboxUpdate{}, fmt.Errorf("the inbox still refuses update %d: %s", id, refused)
	}
	return u, nil
}

// revive puts d back in the inbox and marks it retried. When the inbox
// still refuses it, the letter stays, with the new reason, which is
// returned.
func revive(ctx context.Context, tx pgx.Tx, d DeadLetter, now time.Time) (refused string, err error) {
	if d.Stage == DeadAtStore {
		err := storeOne(ctx, tx, InboxUpdate{ID: d.UpdateID, ChatID: d.ChatID, Kind: d.Kind, Raw: d.Raw}, now)
		switch {
		case err != nil && transient(err):
			return "", err
		case err != nil:
			_, err2 := tx.Exec(ctx, `update dead_letters set error = $2, retries = retries + 1 where update_id = $1`,
				d.UpdateID, err.Error())
			return err.Error(), err2
		}
	} else if _, err := tx.Exec(ctx, `update updates set state = 'pending', attempts = 0, error = '', finished_at = null
		where update_id = $1 and state = 'failed'`, d.UpdateID); err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, `update dead_letters set retried_at = $2, retries = retries + 1 where update_id = $1`, d.UpdateID, now)
	return "", err
}

// DeadCount is how many updates wait in the dead letter.
func (db *DB) DeadCount(ctx context.Context) (int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var n int
	if err := db.pool.QueryRow(ctx, `select count(*) from dead_letters where retried_at is null`).Scan(&n); err != nil {
		return 0, db.fail("count dead letters", err)
	}
	return n, nil
}
