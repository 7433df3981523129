package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// UpdateState is where an update is in the inbox.
type UpdateState string

// Update states.
const (
	StatePending    UpdateState = "pending"
	StateProcessing UpdateState = "processing"
	StateDone       UpdateState = "done"
	StateFailed     UpdateState = "failed"
)

// InboxUpdate is a Telegram update as it arrived, with what the inbox needs to
// order it.
type InboxUpdate struct {
	ID     int64
	ChatID int64 // 0 when the update names no chat
	Sender int64 // who sent it: a person, or the chat they write as; 0 when it names none
	Kind   string
	Raw    json.RawMessage
}

// Claim is an update taken for processing.
type Claim struct {
	Raw      json.RawMessage
	Attempts int // including this one
}

// Refused is an update the inbox could not store, kept in the dead letter
// instead.
type Refused struct {
	Update InboxUpdate
	Reason string
	First  bool // false when it was in the dead letter already: Telegram sent it again
}

// StoreUpdates stores a batch of updates, in one transaction sent at once. An update
// already in the inbox, finished or not, is left as it is: Telegram may
// deliver an update again when it did not hear that it arrived. An update
// the inbox refuses — PostgreSQL rejects its JSON, say — does not hold up
// the others: the updates are then stored one by one, and each one refused
// is kept in the dead letter, with its raw bytes and the reason, and
// returned. An error means that nothing was stored, and that storing the
// batch again later may work (the database is away).
func (db *DB) StoreUpdates(ctx context.Context, batch []InboxUpdate) ([]Refused, error) {
	err := db.batch(ctx, "store updates", func(rows *pgx.Batch) {
		for _, u := range batch {
			rows.Queue(insertUpdate, u.ID, u.ChatID, storableText(u.Kind), storable(u.Raw), db.Now(), u.Sender)
		}
		db.announce(rows, batch)
	})
	if err == nil || transient(err) {
		return nil, err
	}
	var refused []Refused
	err = db.tx(ctx, "store updates one by one", func(tx pgx.Tx) error {
		refused = nil
		var stored []InboxUpdate
		for _, u := range batch {
			r, err := storeOrBury(ctx, tx, u, db.Now())
			if err != nil {
				return err
			}
			if r.Reason != "" {
				refused = append(refused, r)
			} else {
				stored = append(stored, u)
			}
		}
		told := &pgx.Batch{}
		db.announce(told, stored)
		if told.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, told).Close()
	})
	return refused, err
}

// announce tells the other replicas, once the batch is stored, which chats
// have new updates. A process that did not join the replicas tells none.
func (db *DB) announce(rows *pgx.Batch, batch []InboxUpdate) {
	from := db.fence()
	if from == "" {
		return
	}
	told := map[int64]bool{}
	for _, u := range batch {
		if !told[u.ChatID] {
			told[u.ChatID] = true
			rows.Queue(`select pg_notify('`+updatesChannel+`', current_schema() || ' ' || $1::text || ' ' || $2::bigint)`, from, u.ChatID)
		}
	}
}

const insertUpdate = `insert into updates (update_id, chat_id, kind, raw, received_at, sender_id)
	values ($1, nullif($2::bigint, 0), $3, $4, $5, nullif($6::bigint, 0)) on conflict (update_id) do nothing`

// storeOrBury stores u in the inbox or, when the inbox refuses it, in the
// dead letter, and says why it was refused (no Reason when it was stored).
func storeOrBury(ctx context.Context, tx pgx.Tx, u InboxUpdate, now time.Time) (Refused, error) {
	err := storeOne(ctx, tx, u, now)
	switch {
	case err == nil:
		return Refused{}, nil
	case transient(err):
		return Refused{}, err
	}
	first, berr := bury(ctx, tx, u, err.Error(), now)
	return Refused{Update: u, Reason: err.Error(), First: first}, berr
}

// storeOne stores u in the inbox, in a savepoint of tx: when it is refused,
// tx goes on.
func storeOne(ctx context.Context, tx pgx.Tx, u InboxUpdate, now time.Time) error {
	return pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
		_, err := sp.Exec(ctx, insertUpdate, u.ID, u.ChatID, storableText(u.Kind), storable(u.Raw), now, u.Sender)
		return err
	})
}

// transient reports whether err may go away if the same statement runs
// again: the database is away or busy, or the transaction lost a race.
// Anything else is about the data, and would fail again.
func transient(err error) bool {
	if unavailable(err) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "40", "53", "55", "57", "58", "XX": // rollbacks, resources, lock waits, shutdowns, system
			return true
		}
	}
	return false
}

// storable is raw as PostgreSQL's jsonb takes it. jsonb refuses what JSON
// allows — the escape \u0000, a lone UTF-16 surrogate such as \ud800 — and
// bytes that are not UTF-8: such an update is written anew, each of them
// turned into U+FFFD, so that the person is still answered. Any other raw
// is kept as it is.
func storable(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u0000`)) &&
		!bytes.Contains(raw, []byte(`\ud`)) && !bytes.Contains(raw, []byte(`\uD`)) {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers keep every digit
	var v any
	if d.Decode(&v) != nil {
		return raw // not JSON: the inbox says why
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if e.Encode(withoutNUL(v)) != nil {
		return raw
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

// withoutNUL replaces U+0000 in v's strings and keys. (Decoding already
// turned bytes that are not UTF-8, and lone surrogates, into U+FFFD.)
func withoutNUL(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\x00", "\uFFFD")
	case []any:
		for i, e := range x {
			x[i] = withoutNUL(e)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[strings.ReplaceAll(k, "\x00", "\uFFFD")] = withoutNUL(e)
		}
		return out
	}
	return v
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

// LaterFrom returns, oldest first, the raw updates of kind message that
// sender sent in chat after update id and that wait to be handled: at
// most limit, the newest ones. While a person's turn waits, the messages
// they send meanwhile are answered together, as one turn.
func (db *DB) LaterFrom(ctx context.Context, chat, sender, id int64, limit int) ([]json.RawMessage, error) {
	var later []json.RawMessage
	err := db.batch(ctx, "later updates", func(b *pgx.Batch) { queueLater(b, chat, sender, id, limit, &later) })
	return later, err
}

// queueLater queues the read of LaterFrom, and has what it finds land in
// *later.
func queueLater(b *pgx.Batch, chat, sender, id int64, limit int, later *[]json.RawMessage) {
	*later = nil
	b.Queue(`select raw from (select update_id, raw from updates
			where chat_id = $1::bigint and sender_id = $2::bigint and update_id > $3::bigint and state in ('pending', 'processing') and kind = 'message'
			order by update_id desc limit $4::bigint) later order by update_id`, chat, sender, id, limit).Query(func(rows pgx.Rows) error {
		var err error
		*later, err = pgx.CollectRows(rows, pgx.RowTo[json.RawMessage])
		return err
	})
}

// OthersWaiting returns up to limit messages waiting in chat, oldest first,
// from anyone but sender: the questions a turn of sender's would keep
// waiting.
func (db *DB) OthersWaiting(ctx context.Context, chat, sender, id int64, limit int) ([]json.RawMessage, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select raw from updates
		where chat_id = $1::bigint and sender_id is distinct from $2::bigint and update_id <> $3::bigint
			and state in ('pending', 'processing') and kind = 'message'
		order by update_id limit $4::bigint`, chat, sender, id, limit)
	if err != nil {
		return nil, db.fail("waiting updates", err)
	}
	waiting, err := pgx.CollectRows(rows, pgx.RowTo[json.RawMessage])
	if err != nil {
		return nil, db.fail("waiting updates", err)
	}
	return waiting, nil
}

// ClaimUpdate marks an update as being processed and counts the attempt. It
// returns ok false when the update is already done or failed, so a finished
// update is never processed twice; and, once this process joined the
// replicas, when another replica holds the update's chat.
func (db *DB) ClaimUpdate(ctx context.Context, id int64) (c Claim, ok bool, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err = db.pool.QueryRow(ctx, `update updates
		set state = 'processing', attempts = attempts + 1, started_at = $2
		where update_id = $1 and state in ('pending', 'processing') and `+leaseHeld+`
		returning raw, attempts`, id, db.Now(), db.fence()).Scan(&c.Raw, &c.Attempts)
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
func (db *DB) FinishUpdate(ctx context.Context, id int64, state UpdateState, reason string) error {
	return db.tx(ctx, "finish update", func(tx pgx.Tx) error {
		return db.finishUpdate(ctx, tx, id, state, reason)
	})
}

// ErrLeaseLost is returned when an update is finished by a replica that
// no longer holds its chat: another one took the chat over, and runs the
// update again; what this one did is not kept.
var ErrLeaseLost = errors.New("another replica took over the chat; the update runs there")

// leaseHeld is the condition, on a row of updates, that the replica named
// by the statement's third parameter holds its chat's lease ("" for a
// process that did not join the replicas).
const leaseHeld = `($3::text = '' or ` + leaseHolder + ` = $3::text)`

// leaseHolder is the replica holding the lease of the chat of the row of
// updates at hand. A scalar subquery, read through chat_leases' key: an
// exists(…) beside an or is planned as a hashed subplan, which read every
// lease of the replica — a thousand rows under load — for each update
// claimed or finished.
const leaseHolder = `(select l.replica from chat_leases l where l.chat_id = coalesce(updates.chat_id, 0))`

func (db *DB) finishUpdate(ctx context.Context, tx pgx.Tx, id int64, state UpdateState, reason string) error {
	tag, err := tx.Exec(ctx, `update updates set state = $2, error = $4, finished_at = $5
		where update_id = $1 and state in ('pending', 'processing') and `+leaseHeld, id, state, db.fence(), storableText(reason), db.Now())
	if err != nil || tag.RowsAffected() > 0 || db.fence() == "" {
		return err
	}
	return stillUnfinished(ctx, tx, id)
}

// stillUnfinished returns ErrLeaseLost when update id was not finished for
// want of its chat's lease, rather than because it was finished already.
func stillUnfinished(ctx context.Context, tx pgx.Tx, id int64) error {
	var unfinished bool
	err := tx.QueryRow(ctx, `select exists (select 1 from updates where update_id = $1 and state in ('pending', 'processing'))`, id).Scan(&unfinished)
	if err == nil && unfinished {
		return ErrLeaseLost
	}
	return err
}

// UpdateState returns an update's state and how often it was started.
func (db *DB) UpdateState(ctx context.Context, id int64) (state UpdateState, attempts int, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err = db.pool.QueryRow(ctx, "select state, attempts from updates where update_id = $1", id).Scan(&state, &attempts)
	if err != nil {
		return "", 0, db.fail("update state", err)
	}
	return state, attempts, nil
}
