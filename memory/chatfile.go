package memory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// The files people send the bot to read, kept as documents of the
// knowledge base's tables with the message they came with (d.Message):
// their chat's alone, and gone with the message.

// SaveChatFile stores the text of a file a person sent with stored
// message d.Message in chat d.Chat, split into chunks, and returns it
// with its id. A file already stored for that message (a turn run again)
// is kept, and returned as it is.
func (db *DB) SaveChatFile(ctx context.Context, d ryo.Document, chunks []ryo.Chunk) (ryo.Document, error) {
	if d.Message == 0 || d.Chat == 0 {
		return ryo.Document{}, errors.New("save chat file: no message or chat")
	}
	d.Chunks = len(chunks)
	err := db.tx(ctx, "save a chat's file", func(tx pgx.Tx) error {
		d.AddedAt = db.Now()
		err := tx.QueryRow(ctx, `insert into knowledge_documents (chat_id, name, title, source, added_by, added_at, bytes, chunks, message_id)
			values ($1::bigint, $2, $3, $4, $5::bigint, $6, $7::bigint, $8::bigint, $9::bigint)
			on conflict (message_id) where message_id is not null do nothing returning id`,
			d.Chat, d.Name, d.Title, d.Source, d.AddedBy, d.AddedAt, d.Bytes, d.Chunks, d.Message).Scan(&d.ID)
		if errors.Is(err, pgx.ErrNoRows) { // stored by an earlier run of the turn
			rows, err := tx.Query(ctx, `select `+documentColumns+` from knowledge_documents d where d.message_id = $1::bigint`, d.Message)
			if err != nil {
				return err
			}
			d, err = pgx.CollectExactlyOneRow(rows, scanDocument)
			return err
		}
		if err != nil {
			return err
		}
		return insertChunks(ctx, tx, d.ID, chunks)
	})
	if err != nil {
		return ryo.Document{}, err
	}
	return d, nil
}

// ChatFiles returns the files stored for the given messages of chat,
// keyed by message.
func (db *DB) ChatFiles(ctx context.Context, chat int64, messages []int64) (map[int64]ryo.Document, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+documentColumns+` from knowledge_documents d
		where d.chat_id = $1::bigint and d.message_id = any($2::bigint[])`, chat, messages)
	if err != nil {
		return nil, db.fail("load a chat's files", err)
	}
	docs, err := pgx.CollectRows(rows, scanDocument)
	if err != nil {
		return nil, db.fail("load a chat's files", err)
	}
	out := make(map[int64]ryo.Document, len(docs))
	for _, d := range docs {
		out[d.Message] = d
	}
	return out, nil
}

// ChatFileText returns the passages of file id of chat, in order, up to
// the first that ends past chars characters of text, and how many
// characters its passages hold in all. None when chat has no such file.
func (db *DB) ChatFileText(ctx context.Context, chat, id int64, chars int) ([]ryo.Chunk, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select ord, heading, text, total from (
			select c.ord, c.heading, c.text, sum(length(c.text)) over (order by c.ord) - length(c.text) as before,
				sum(length(c.text)) over () as total
			from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
			where c.document_id = $1::bigint and d.chat_id = $2::bigint and d.message_id is not null) c
		where before <= $3::bigint order by ord`, id, chat, chars)
	if err != nil {
		return nil, 0, db.fail("load a chat's file", err)
	}
	var c ryo.Chunk
	var chunks []ryo.Chunk
	var total int64
	_, err = pgx.ForEachRow(rows, []any{&c.Ord, &c.Heading, &c.Text, &total}, func() error {
		chunks = append(chunks, c)
		return nil
	})
	if err != nil {
		return nil, 0, db.fail("load a chat's file", err)
	}
	return chunks, int(total), nil
}

// ContextOnly returns which of the given messages were kept as context
// only: group messages not meant for the bot, whose files it never reads.
func (db *DB) ContextOnly(ctx context.Context, messages []int64) (map[int64]bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select id from messages where id = any($1::bigint[]) and context_only`, messages)
	if err != nil {
		return nil, db.fail("tell context from questions", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, db.fail("tell context from questions", err)
	}
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}
