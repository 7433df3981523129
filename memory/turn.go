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
	var t Turn
	err := db.batch(ctx, "load turn", func(b *pgx.Batch) { queueTurn(b, updateID, &t) })
	return t, err
}

// queueTurn queues the read of Turn, and has what it finds land in *t.
func queueTurn(b *pgx.Batch, updateID int64, t *Turn) {
	*t = Turn{}
	b.Queue(`select status_message_id, answer, answer_metadata, part_message_ids, created_at
		from turns where update_id = $1::bigint`, updateID).QueryRow(func(row pgx.Row) error {
		var status *int64
		var answer *string
		var parts []int64
		err := row.Scan(&status, &answer, &t.AnswerMetadata, &parts, &t.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			*t = Turn{}
			return nil
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
		return err
	})
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

// TurnAnswer is the model's answer to the turn of an update, as it is
// remembered before it is delivered, with what came with it.
type TurnAnswer struct {
	UpdateID int64
	Place    ryo.Place
	Text     string
	Metadata json.RawMessage
	// Usage is what the answer cost, counted once however often the turn
	// runs (RecordUsage); nil when it is not counted here.
	Usage *Usage
	// Trace is what the turn did (SaveTrace); nil when none is kept.
	Trace *Trace
}

// SaveTurnAnswer remembers the model's answer before it is delivered, so
// that a turn interrupted while delivering delivers the same answer again
// instead of asking the model anew.
func (db *DB) SaveTurnAnswer(ctx context.Context, updateID int64, place ryo.Place, answer string, meta json.RawMessage) error {
	return db.SaveAnswered(ctx, TurnAnswer{UpdateID: updateID, Place: place, Text: answer, Metadata: meta})
}

// SaveAnswered remembers a's answer as SaveTurnAnswer does, with its usage
// and its trace, in one round trip and one transaction: either all of it
// is kept or none is.
func (db *DB) SaveAnswered(ctx context.Context, a TurnAnswer) error {
	trace, err := a.traceArgs(db.Now())
	if err != nil {
		return err
	}
	return db.batch(ctx, "save turn answer", func(b *pgx.Batch) { queueTurnAnswer(b, a, trace, db.Now()) })
}

// traceArgs are the arguments of upsertTrace for a's trace; nil when it
// has none.
func (a TurnAnswer) traceArgs(now time.Time) ([]any, error) {
	if a.Trace == nil {
		return nil, nil
	}
	return traceArgs(*a.Trace, now)
}

// queueTurnAnswer queues the statements that remember a: its usage, its
// trace (trace, its arguments, when it has one), the answer, and the end
// of the tool the person chose for the turn.
func queueTurnAnswer(b *pgx.Batch, a TurnAnswer, trace []any, now time.Time) {
	if a.Usage != nil {
		b.Queue(insertUsage, usageArgs(*a.Usage, now)...)
	}
	if trace != nil {
		b.Queue(upsertTrace, trace...)
	}
	b.Queue(`insert into turns (update_id, chat_id, thread_id, answer, answer_metadata, updated_at)
		values ($1::bigint, $2::bigint, $3::bigint, $4, $5, $6)
		on conflict (update_id) do update set answer = excluded.answer, answer_metadata = excluded.answer_metadata,
			updated_at = excluded.updated_at`,
		a.UpdateID, a.Place.ChatID, a.Place.Thread, storableText(a.Text), storable(a.Metadata), now)
	// The tool the person chose for this turn has served.
	b.Queue(`delete from forced_tools where used_by = $1::bigint`, a.UpdateID)
}

// FinishTurn stores the bot's answer with its tags and marks its update
// done, in one statement: either all of it happens or none does. An
// answer stored already (SaveAnswer) is kept as it is.
func (db *DB) FinishTurn(ctx context.Context, answer ryo.Message, tags []string) (ryo.Message, error) {
	f, err := db.FinishAnswer(ctx, answer, tags)
	return f.Answer, err
}

// Finished is what FinishAnswer did.
type Finished struct {
	Answer ryo.Message // as stored, with its row id and time
	// Before is the newest answer of another turn stored at Answer's place
	// since its context was last reset, as it was before: its ID (0 when
	// there is none), Place, UpdateID and Metadata.
	Before ryo.Message
}

// FinishAnswer is FinishTurn, one round trip, which also tells the answer
// stored before this one at its place. Like FinishUpdate, it returns
// ErrLeaseLost, and keeps nothing, when another replica took the update's
// chat over — also when that replica finished the update already, with an
// answer of its own; an update finished already with this answer is left
// as it is.
func (db *DB) FinishAnswer(ctx context.Context, answer ryo.Message, tags []string) (Finished, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	f := Finished{Before: ryo.Message{Place: answer.Place}}
	m := answer
	args := messageArgs(&m, db.Now(), false)
	args = append(args, db.fence(), tags)
	var lost bool
	var before, beforeUpdate *int64
	var err error
	for range txAttempts {
		err = db.pool.QueryRow(ctx, finishAnswer, args...).Scan(&lost, &m.ID, &m.CreatedAt, &before, &beforeUpdate, &f.Before.Metadata)
		if !lostRace(err) {
			break
		}
	}
	switch {
	case err != nil:
		return f, db.fail("finish turn", err)
	case lost:
		return f, db.fail("finish turn", ErrLeaseLost)
	}
	f.Answer = m
	if before != nil {
		f.Before.ID, f.Before.UpdateID = *before, *beforeUpdate
	}
	return f, nil
}

// finishAnswer marks update $9 done, as finishUpdate does, and stores its
// answer (messageArgs) with the tags $16, unless the update waits to be
// finished by the replica that took its chat over, or was finished already
// without this answer — by that replica, with its own (lost). An update
// finished with this very answer (a retry whose reply was lost) is left
// as it is. It returns lost,
// the stored answer's id and time, and the update and metadata of the
// answer before it (NewestAnswer, of another update).
const finishAnswer = `with fin as (
		update updates set state = 'done', error = '', finished_at = $11::timestamptz
		where update_id = $9::bigint and state in ('pending', 'processing') and ($15::text = '' or ` + leaseHolder + ` = $15::text)
		returning update_id),
	lost as (
		select 1 from updates where update_id = $9::bigint and $15::text <> '' and not exists (select 1 from fin)
			and (state in ('pending', 'processing')
				or not exists (select 1 from messages where chat_id = $1::bigint and telegram_message_id = nullif($7::bigint, 0)))),
	ins as (
		insert into messages (chat_id, thread_id, sender_id, role, kind, text,
			telegram_message_id, reply_to_message_id, update_id, metadata, created_at, context_only, media, media_group)
		select $1::bigint, $2::bigint, $3::bigint, $4::text, $5::text, $6::text, nullif($7::bigint, 0), nullif($8::bigint, 0),
			nullif($9::bigint, 0), $10::jsonb, $11::timestamptz, $12::boolean, $13::jsonb, nullif($14::text, '')
		where not exists (select 1 from lost)
		on conflict (chat_id, telegram_message_id) where telegram_message_id is not null do nothing
		returning id, created_at),
	kept as (
		select id, created_at from ins
		union all
		select id, created_at from messages where chat_id = $1::bigint and telegram_message_id = nullif($7::bigint, 0)
			and not exists (select 1 from lost)
		limit 1),
	tagged as (
		insert into message_tags (message_id, tag)
		select kept.id, t.tag from kept, (select distinct unnest($16::text[]) as tag) t
		on conflict do nothing),
	before as (
		select m.id, coalesce(m.update_id, 0) as update_id, m.metadata from messages m
		where m.chat_id = $1::bigint and m.thread_id = $2::bigint and m.kind = 'assistant'
			and m.update_id is distinct from nullif($9::bigint, 0)
			and m.id > coalesce((select context_from from chat_topics where chat_id = $1::bigint and thread_id = $2::bigint), 0)
		order by m.id desc limit 1)
	select exists (select 1 from lost), coalesce((select id from kept), 0), coalesce((select created_at from kept), $11::timestamptz),
		(select id from before), (select update_id from before), (select metadata from before)`

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
