package memory

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// saveAttachments stores the files a tool made with its result message,
// for the turn of update to deliver.
func saveAttachments(ctx context.Context, tx pgx.Tx, messageID, update int64, files []ryo.Attachment, now time.Time) error {
	for i, f := range files {
		_, err := tx.Exec(ctx, `insert into attachments (message_id, position, update_id, name, mime_type, caption, data, created_at)
			values ($1::bigint, $2::integer, $3::bigint, $4, $5, $6, $7::bytea, $8)`,
			messageID, int32(i), update, storableText(f.Name), storableText(f.MimeType), storableText(f.Caption), f.Data, now)
		if err != nil {
			return err
		}
	}
	return nil
}

// TurnAttachments returns the files the tools of the turn answering
// updateID made for the person, in the order they were made: what the
// turn delivers after its answer.
func (db *DB) TurnAttachments(ctx context.Context, updateID int64) ([]ryo.Attachment, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select name, mime_type, caption, data from attachments
		where update_id = $1::bigint order by message_id, position`, updateID)
	if err != nil {
		return nil, db.fail("load the turn's attachments", err)
	}
	files, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ryo.Attachment, error) {
		var f ryo.Attachment
		return f, row.Scan(&f.Name, &f.MimeType, &f.Caption, &f.Data)
	})
	if err != nil {
		return nil, db.fail("load the turn's attachments", err)
	}
	return files, nil
}
