package memory

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

func saveChat(ctx context.Context, tx pgx.Tx, c ryo.Chat, now time.Time) error {
	_, err := tx.Exec(ctx, saveChatSQL, chatArgs(c, now)...)
	return err
}

// queueChat queues what saveChat does.
func queueChat(b *pgx.Batch, c ryo.Chat, now time.Time) {
	b.Queue(saveChatSQL, chatArgs(c, now)...)
}

// saveChatSQL stores a chat, or what changed of it: a chat seen again as
// it was is left as it is, not written again with each message (updated_at
// is when what ryo knows of it last changed).
const saveChatSQL = `insert into chats (id, type, title, username, is_forum, updated_at)
	values ($1, $2, $3, $4, $5, $6)
	on conflict (id) do update set type = excluded.type, title = excluded.title,
		username = excluded.username, is_forum = excluded.is_forum, updated_at = excluded.updated_at
	where (chats.type, chats.title, chats.username, chats.is_forum)
		is distinct from (excluded.type, excluded.title, excluded.username, excluded.is_forum)`

func chatArgs(c ryo.Chat, now time.Time) []any {
	return []any{c.ID, storableText(string(c.Type)), storableText(c.Title), storableText(c.Username), c.IsForum, now}
}

// queuePlace queues the saving of place p: its chat's topic, or the chat.
func queuePlace(b *pgx.Batch, p ryo.Place, now time.Time) {
	b.Queue(`insert into chat_topics (chat_id, thread_id, updated_at) values ($1, $2, $3)
		on conflict (chat_id, thread_id) do nothing`, p.ChatID, p.Thread, now)
}

// SaveChat records a chat the bot has seen.
func (db *DB) SaveChat(ctx context.Context, c ryo.Chat) error {
	return db.tx(ctx, "save chat", func(tx pgx.Tx) error { return saveChat(ctx, tx, c, db.Now()) })
}

// ResetContext makes the model forget the conversation at place so far. The
// stored history stays; only the start of the model's context moves.
func (db *DB) ResetContext(ctx context.Context, chat ryo.Chat, p ryo.Place) error {
	return db.tx(ctx, "reset context", func(tx pgx.Tx) error {
		if err := saveChat(ctx, tx, chat, db.Now()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `insert into chat_topics (chat_id, thread_id, context_from, updated_at)
			values ($1, $2, (select coalesce(max(id), 0) from messages where chat_id = $1 and thread_id = $2), $3)
			on conflict (chat_id, thread_id) do update set context_from = excluded.context_from, updated_at = excluded.updated_at`,
			p.ChatID, p.Thread, db.Now())
		return err
	})
}
