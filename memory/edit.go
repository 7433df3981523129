package memory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// Edit is a person's edit of a message they sent.
type Edit struct {
	Place      ryo.Place
	TelegramID int    // the edited message
	Text       string // its text now
	Date       int64  // Telegram's edit_date, in Unix seconds
	Update     int64  // the update that brought the edit
}

// ApplyEdit gives the stored message e edits e's text, unless a newer edit
// was applied, or the text is unchanged. It returns the stored message as
// it is now, whether e is the newest edit applied to it (also when e was
// applied before: an edit run again after a crash goes on), and the update
// of the edit e replaced, 0 when none. A message never stored — not meant
// for the bot, another bot's — is not found.
func (db *DB) ApplyEdit(ctx context.Context, e Edit) (m ryo.Message, newest bool, earlier int64, err error) {
	err = db.tx(ctx, "apply edit", func(tx pgx.Tx) error {
		var before *int64
		err := tx.QueryRow(ctx, `select edit_update_id from messages
			where chat_id = $1::bigint and telegram_message_id = $2::bigint and kind = 'user' for update`,
			e.Place.ChatID, e.TelegramID).Scan(&before)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if before != nil && *before != e.Update {
			earlier = *before
		}
		_, err = tx.Exec(ctx, `update messages set text = $3, edit_date = $4::bigint, edit_update_id = $5::bigint
			where chat_id = $1::bigint and telegram_message_id = $2::bigint and kind = 'user' and text <> $3
				and (edit_update_id is null or (edit_date, edit_update_id) < ($4::bigint, $5::bigint))`,
			e.Place.ChatID, e.TelegramID, storableText(e.Text), e.Date, e.Update)
		if err != nil {
			return err
		}
		var applied *int64
		err = tx.QueryRow(ctx, `select edit_update_id from messages
			where chat_id = $1::bigint and telegram_message_id = $2::bigint and kind = 'user'`, e.Place.ChatID, e.TelegramID).Scan(&applied)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		newest = err == nil && applied != nil && *applied == e.Update
		return err
	})
	if err != nil || !newest {
		return ryo.Message{}, false, 0, err
	}
	m, newest, err = db.oneMessage(ctx, e.Place, `m.telegram_message_id = $3::bigint and m.kind = 'user'`, int64(e.TelegramID))
	return m, newest, earlier, err
}
