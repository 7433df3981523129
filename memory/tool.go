package memory

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// SaveToolResult stores a tool-result message under its call's idempotency
// key, with the files its tool made (m.Attachments), for the turn of
// m.UpdateID to deliver. When a result with the same key is already
// stored, that one is returned and nothing is written.
func (db *DB) SaveToolResult(ctx context.Context, m ryo.Message, key string) (ryo.Message, error) {
	err := db.tx(ctx, "save tool result", func(tx pgx.Tx) (err error) {
		m, err = saveToolResult(ctx, tx, key, m, db.Now())
		return err
	})
	return m, err
}

// saveToolResult stores m under key, unless a result is stored under it
// already, which is returned instead.
func saveToolResult(ctx context.Context, tx pgx.Tx, key string, m ryo.Message, now time.Time) (ryo.Message, error) {
	prior, found, err := toolResult(ctx, tx, key, m.Place)
	if err != nil || found {
		return prior, err
	}
	m.Kind = ryo.KindToolResult
	m, err = insertMessage(ctx, tx, m, now, false)
	if err != nil {
		return m, err
	}
	if _, err = tx.Exec(ctx, `update messages set idempotency_key = $2 where id = $1`, m.ID, key); err != nil {
		return m, err
	}
	return m, saveAttachments(ctx, tx, m.ID, m.UpdateID, m.Attachments, now)
}

// ToolResult returns the stored result of the call with idempotency key.
func (db *DB) ToolResult(ctx context.Context, key string) (ryo.Message, bool, error) {
	var m ryo.Message
	var found bool
	err := db.tx(ctx, "find tool result", func(tx pgx.Tx) error {
		var err error
		m, found, err = toolResult(ctx, tx, key, ryo.Place{})
		return err
	})
	return m, found, err
}

func toolResult(ctx context.Context, tx pgx.Tx, key string, place ryo.Place) (ryo.Message, bool, error) {
	m := ryo.Message{Kind: ryo.KindToolResult, Place: place}
	err := tx.QueryRow(ctx, `select id, chat_id, thread_id, text, coalesce(update_id, 0), metadata, created_at
		from messages where kind = 'tool_result' and idempotency_key = $1`, key).
		Scan(&m.ID, &m.Place.ChatID, &m.Place.Thread, &m.Text, &m.UpdateID, &m.Metadata, &m.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.Message{}, false, nil
	}
	return m, err == nil, err
}

// saveTags tags a message; tags are already normalised.
func saveTags(ctx context.Context, tx pgx.Tx, messageID int64, tags []string) error {
	for _, tag := range tags {
		if _, err := tx.Exec(ctx, `insert into message_tags (message_id, tag) values ($1, $2) on conflict do nothing`,
			messageID, tag); err != nil {
			return err
		}
	}
	return nil
}

// TagCount is how often a tag was used.
type TagCount struct {
	Tag   string
	Count int
}

// TagCounts returns the most used tags, most used first.
func (db *DB) TagCounts(ctx context.Context, limit int) ([]TagCount, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select tag, count(*) from message_tags group by tag order by 2 desc, 1 limit $1`, limit)
	if err != nil {
		return nil, db.fail("tag counts", err)
	}
	counts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (TagCount, error) {
		var c TagCount
		return c, row.Scan(&c.Tag, &c.Count)
	})
	if err != nil {
		return nil, db.fail("tag counts", err)
	}
	return counts, nil
}
