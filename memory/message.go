package memory

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// SaveUserMessage stores a message a person wrote, with its chat, place and
// sender, in one transaction, and returns it with its row id and the sender's
// stored role. Storing the same Telegram message twice returns the first row.
func (db *DB) SaveUserMessage(ctx context.Context, chat ryo.Chat, m ryo.Message) (ryo.Message, error) {
	return db.saveUserMessage(ctx, "save user message", chat, m, false)
}

// SaveContextMessage stores a group message that was not meant for the bot
// as SaveUserMessage does, marked as context only: it is never answered,
// and a sweep deletes it once it is older than the context's retention.
func (db *DB) SaveContextMessage(ctx context.Context, chat ryo.Chat, m ryo.Message) (ryo.Message, error) {
	return db.saveUserMessage(ctx, "save context message", chat, m, true)
}

// SaveStartedMessage stores the message a turn answers as SaveUserMessage
// does, when StartTurn stored its sender in that turn already: the chat,
// the place and the message, in one transaction. The sender is returned as
// given, without their role.
func (db *DB) SaveStartedMessage(ctx context.Context, chat ryo.Chat, m ryo.Message) (ryo.Message, error) {
	return db.saveMessage(ctx, "save user message", chat, m, false, false)
}

func (db *DB) saveUserMessage(ctx context.Context, op string, chat ryo.Chat, m ryo.Message, contextOnly bool) (ryo.Message, error) {
	return db.saveMessage(ctx, op, chat, m, contextOnly, true)
}

// saveMessage stores m with its chat and place, and its sender when
// withSender is set.
func (db *DB) saveMessage(ctx context.Context, op string, chat ryo.Chat, m ryo.Message, contextOnly, withSender bool) (ryo.Message, error) {
	var stored ryo.Message
	err := db.batch(ctx, op, func(b *pgx.Batch) {
		now := db.Now()
		stored = m
		queueChat(b, chat, now)
		queuePlace(b, m.Place, now)
		if m.Sender != nil && withSender {
			sender := *m.Sender
			stored.Sender = &sender
			queueUser(b, &sender, false, now)
		}
		queueMessage(b, &stored, now, contextOnly)
	})
	return stored, err
}

func role(k ryo.Kind) string {
	switch k {
	case ryo.KindAssistant:
		return ryo.ModelAssistant
	case ryo.KindSystem:
		return ryo.ModelSystem
	}
	return ryo.ModelUser // people, and tool results, which are synthetic user messages
}

// storableText is s as PostgreSQL's text takes it: U+0000, which it
// refuses, and bytes that are not UTF-8 become U+FFFD.
func storableText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// insertMessage inserts m, or when its Telegram message is already stored,
// returns the stored row's id and time. contextOnly marks a group message
// not meant for the bot, which is swept in time.
func insertMessage(ctx context.Context, tx pgx.Tx, m ryo.Message, now time.Time, contextOnly bool) (ryo.Message, error) {
	args := messageArgs(&m, now, contextOnly)
	err := tx.QueryRow(ctx, insertMessageSQL, args...).Scan(&m.ID, &m.CreatedAt)
	return m, err
}

// queueMessage queues what insertMessage does for *m, and has the stored
// row's id and time land in it.
func queueMessage(b *pgx.Batch, m *ryo.Message, now time.Time, contextOnly bool) {
	b.Queue(insertMessageSQL, messageArgs(m, now, contextOnly)...).QueryRow(func(row pgx.Row) error {
		return row.Scan(&m.ID, &m.CreatedAt)
	})
}

const insertMessageSQL = `with ins as (
		insert into messages (chat_id, thread_id, sender_id, role, kind, text,
			telegram_message_id, reply_to_message_id, update_id, metadata, created_at, context_only, media, media_group)
		values ($1, $2, $3, $4, $5, $6, nullif($7::bigint, 0), nullif($8::bigint, 0), nullif($9::bigint, 0), $10, $11, $12,
			$13, nullif($14::text, ''))
		on conflict (chat_id, telegram_message_id) where telegram_message_id is not null do nothing
		returning id, created_at)
	select id, created_at from ins
	union all
	select id, created_at from messages where chat_id = $1 and telegram_message_id = nullif($7::bigint, 0)
	limit 1`

// messageArgs makes *m storable — its text and metadata as PostgreSQL
// takes them — and returns the arguments of insertMessageSQL for it.
func messageArgs(m *ryo.Message, now time.Time, contextOnly bool) []any {
	if len(m.Metadata) == 0 {
		m.Metadata = []byte("{}")
	}
	m.Text, m.Metadata = storableText(m.Text), storable(m.Metadata)
	var sender *int64
	if m.Sender != nil {
		sender = &m.Sender.ID
	}
	media := m.Media
	if media == nil {
		media = []ryo.Media{}
	}
	return []any{m.Place.ChatID, m.Place.Thread, sender, role(m.Kind), string(m.Kind), m.Text,
		m.TelegramID, m.ReplyTo, m.UpdateID, m.Metadata, now, contextOnly, media, storableText(m.MediaGroup)}
}

// History returns the latest messages at place since its context was last
// reset, oldest first, with their senders: all of them up to limit; past
// that, between limit/2 and limit, because the window's oldest message moves
// on only every limit/2 messages. A window that slid by one message every
// turn would change the start of the prompt every turn, and the model server
// could reuse nothing of its cache.
func (db *DB) History(ctx context.Context, p ryo.Place, limit int) ([]ryo.Message, error) {
	var msgs []ryo.Message
	err := db.batch(ctx, "history", func(b *pgx.Batch) { queueHistory(b, p, limit, &msgs) })
	return msgs, err
}

// queueHistory queues the read of History, and has what it finds land in
// *msgs.
func queueHistory(b *pgx.Batch, p ryo.Place, limit int, msgs *[]ryo.Message) {
	*msgs = nil
	// One statement, so one snapshot for the count and the rows: a message
	// committed between the two must not shrink the window.
	b.Queue(`with since as (
			select coalesce((select context_from from chat_topics where chat_id = $1::bigint and thread_id = $2::bigint), 0) as id),
		total as (
			select count(*) as n from messages where chat_id = $1::bigint and thread_id = $2::bigint and id > (select id from since)),
		win as (`+windowSQL+`)
		select * from (
			select m.id, m.kind, m.text, coalesce(m.telegram_message_id, 0), coalesce(m.reply_to_message_id, 0),
				coalesce(m.update_id, 0), m.metadata, m.created_at,
				u.id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''), coalesce(u.role, ''),
				m.media, coalesce(m.media_group, '')
			from messages m
			left join users u on u.id = m.sender_id
			where m.chat_id = $1::bigint and m.thread_id = $2::bigint and m.id > (select id from since)
			order by m.id desc limit (select n from win)) recent
		order by 1`, p.ChatID, int64(p.Thread), int64(limit)).Query(func(rows pgx.Rows) error {
		var err error
		*msgs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Message, error) {
			return scanMessage(row, p)
		})
		return err
	})
}

// windowSQL is how many of total's n messages to keep for the limit $3:
// all up to the limit, then a number that shrinks by one with each message
// and grows back by limit/2 at once, so that the oldest kept message
// changes only every limit/2 messages.
const windowSQL = `select case when t.n <= $3::bigint then t.n
		else t.n - (t.n - $3::bigint + s.step - 1) / s.step * s.step end as n
	from total t, (select greatest($3::bigint / 2, 1) as step) s`

func scanMessage(row pgx.CollectableRow, p ryo.Place) (ryo.Message, error) {
	m := ryo.Message{Place: p}
	var kind string
	var senderID *int64
	var u ryo.User
	var role string
	err := row.Scan(&m.ID, &kind, &m.Text, &m.TelegramID, &m.ReplyTo, &m.UpdateID, &m.Metadata, &m.CreatedAt,
		&senderID, &u.Username, &u.FirstName, &u.LastName, &role, &m.Media, &m.MediaGroup)
	m.Kind = ryo.Kind(kind)
	if senderID != nil {
		u.ID, u.Role = *senderID, ryo.Role(role)
		m.Sender = &u
	}
	return m, err
}

// ShortestWindow is the fewest of the newest messages History returns for
// limit once a place holds more than limit: what a turn is sure to show.
func ShortestWindow(limit int) int {
	return limit - max(limit/2, 1) + 1
}

// SinceAnswered counts the messages in p that came after the bot last
// answered sender there, newest first, up to at most n: what a turn for
// sender that folds in their waiting messages must show.
func (db *DB) SinceAnswered(ctx context.Context, p ryo.Place, sender int64, n int) (int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select m.kind = 'assistant' and a.sender_id is not distinct from $3::bigint
		from messages m left join messages a on m.kind = 'assistant' and a.chat_id = m.chat_id
			and a.telegram_message_id = m.reply_to_message_id
		where m.chat_id = $1::bigint and m.thread_id = $2::bigint order by m.id desc limit $4::bigint`,
		p.ChatID, p.Thread, sender, n)
	if err != nil {
		return 0, db.fail("messages since answered", err)
	}
	answers, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		return 0, db.fail("messages since answered", err)
	}
	for i, answer := range answers {
		if answer {
			return i, nil
		}
	}
	return len(answers), nil
}
