package memory

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// SaveTranscript stores what was heard in a person's recording with the
// message that carried it: its text, which history, recall and
// history_search read, and its media, which keep the transcript itself,
// so that a turn run again reuses it instead of transcribing again.
func (db *DB) SaveTranscript(ctx context.Context, messageID int64, text string, media []ryo.Media) error {
	if media == nil {
		media = []ryo.Media{}
	}
	return db.tx(ctx, "save transcript", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `update messages set text = $2, media = $3 where id = $1::bigint`,
			messageID, storableText(text), media)
		return err
	})
}
