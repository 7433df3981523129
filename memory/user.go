package memory

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// SaveUser records a user's profile as Telegram shows it now and returns the
// user with the role stored for them. started marks the user as having sent
// /start.
func (db *DB) SaveUser(ctx context.Context, u ryo.User, started bool) (ryo.User, error) {
	err := db.tx(ctx, "save user", func(tx pgx.Tx) error {
		var err error
		u, err = saveUser(ctx, tx, u, started, db.Now())
		return err
	})
	return u, err
}

func saveUser(ctx context.Context, tx pgx.Tx, u ryo.User, started bool, now time.Time) (ryo.User, error) {
	var role string
	err := tx.QueryRow(ctx, `insert into users (id, username, first_name, last_name, language_code, is_bot, started_at, updated_at)
		values ($1, $2, $3, $4, $5, $6, case when $7 then $8::timestamptz end, $8)
		on conflict (id) do update set username = excluded.username, first_name = excluded.first_name,
			last_name = excluded.last_name, language_code = excluded.language_code, is_bot = excluded.is_bot,
			started_at = coalesce(users.started_at, excluded.started_at), updated_at = excluded.updated_at
		returning role`,
		u.ID, u.Username, u.FirstName, u.LastName, u.LanguageCode, u.IsBot, started, now).Scan(&role)
	u.Role = ryo.Role(role)
	return u, err
}
