package memory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// Answered is a stored answer with the person's message it answers.
type Answered struct {
	Answer   ryo.Message
	Question ryo.Message // its Sender is the asker; zero when the message is no longer stored
}

// messageColumns are the columns scanMessage reads, of messages m joined
// with their senders u.
const messageColumns = `m.id, m.kind, m.text, coalesce(m.telegram_message_id, 0), coalesce(m.reply_to_message_id, 0),
	coalesce(m.update_id, 0), m.metadata, m.created_at,
	u.id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''), coalesce(u.role, ''),
	m.media, coalesce(m.media_group, '')`

// AnswerOfTurn is the answer turn update stored, and the message it
// answers; ok is false when there is no such answer.
func (db *DB) AnswerOfTurn(ctx context.Context, update int64) (a Answered, ok bool, err error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var place ryo.Place
	err = db.pool.QueryRow(ctx, `select chat_id, thread_id from messages
		where update_id = $1::bigint and kind = 'assistant' order by id desc limit 1`, update).Scan(&place.ChatID, &place.Thread)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, false, nil
	}
	if err != nil {
		return a, false, db.fail("load answer", err)
	}
	if a.Answer, ok, err = db.oneMessage(ctx, place, `m.update_id = $3::bigint and m.kind = 'assistant'`, update); err != nil || !ok {
		return a, ok, err
	}
	a.Question, _, err = db.oneMessage(ctx, place, `m.telegram_message_id = $3::bigint and m.kind = 'user'`, int64(a.Answer.ReplyTo))
	return a, true, err
}

// NewestAnswer is the newest answer stored at place since its context was
// last reset; ok is false when there is none.
func (db *DB) NewestAnswer(ctx context.Context, place ryo.Place) (ryo.Message, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	return db.oneMessage(ctx, place, `m.kind = 'assistant' and m.id > coalesce((select context_from from chat_topics
		where chat_id = $1 and thread_id = $2), $3::bigint)`, int64(0))
}

// oneMessage is the newest message at place that matches where, which may
// use $3 (arg).
func (db *DB) oneMessage(ctx context.Context, place ryo.Place, where string, arg int64) (ryo.Message, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+messageColumns+` from messages m left join users u on u.id = m.sender_id
		where m.chat_id = $1 and m.thread_id = $2 and `+where+` order by m.id desc limit 1`, place.ChatID, place.Thread, arg)
	if err != nil {
		return ryo.Message{}, false, db.fail("load message", err)
	}
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Message, error) { return scanMessage(row, place) })
	if err != nil {
		return ryo.Message{}, false, db.fail("load message", err)
	}
	if len(msgs) == 0 {
		return ryo.Message{}, false, nil
	}
	return msgs[0], true, nil
}

// FinishReplacing stores answer in place of the answer replaced, and marks
// answer's update done, in one transaction, as FinishTurn does: the
// replaced answer, and the tool results its turn stored, leave the history
// (and with them their tags and files), so that the history holds only the
// answer the person ends up with.
func (db *DB) FinishReplacing(ctx context.Context, answer ryo.Message, tags []string, replaced ryo.Message) (ryo.Message, error) {
	err := db.tx(ctx, "finish replacing answer", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `delete from messages where chat_id = $1::bigint and (id = $2::bigint
			or update_id = $3::bigint and kind = 'tool_result')`, replaced.Place.ChatID, replaced.ID, replaced.UpdateID)
		if err != nil {
			return err
		}
		if err := db.finishAnswered(ctx, tx, answer); err != nil {
			return err
		}
		answer, err = saveAnswer(ctx, tx, answer, tags, db.Now())
		return err
	})
	return answer, err
}

// finishAnswered marks answer's update done, as finishUpdate does, before
// answer is stored. It also returns ErrLeaseLost when the update was
// finished already without answer: by the replica that took its chat
// over, with an answer of its own. One finished with answer (a retry whose
// reply was lost) is left as it is.
func (db *DB) finishAnswered(ctx context.Context, tx pgx.Tx, answer ryo.Message) error {
	tag, err := tx.Exec(ctx, `update updates set state = $2, error = '', finished_at = $4
		where update_id = $1 and state in ('pending', 'processing') and `+leaseHeld, answer.UpdateID, StateDone, db.fence(), db.Now())
	if err != nil || tag.RowsAffected() > 0 || db.fence() == "" {
		return err
	}
	var lost bool
	err = tx.QueryRow(ctx, `select exists (select 1 from updates where update_id = $1::bigint
		and (state in ('pending', 'processing')
			or not exists (select 1 from messages where chat_id = $2::bigint and telegram_message_id = nullif($3::bigint, 0))))`,
		answer.UpdateID, answer.Place.ChatID, int64(answer.TelegramID)).Scan(&lost)
	if err == nil && lost {
		return ErrLeaseLost
	}
	return err
}
