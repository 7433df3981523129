package memory

import (
	"context"
	"errors"
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
		returning role, allowed`,
		u.ID, u.Username, u.FirstName, u.LastName, u.LanguageCode, u.IsBot, started, now).Scan(&role, &u.Allowed)
	u.Role = ryo.Role(role)
	return u, err
}

const userColumns = `id, username, first_name, last_name, language_code, is_bot, role, allowed`

func scanUser(row pgx.CollectableRow) (ryo.User, error) {
	var u ryo.User
	var role string
	err := row.Scan(&u.ID, &u.Username, &u.FirstName, &u.LastName, &u.LanguageCode, &u.IsBot, &role, &u.Allowed)
	u.Role = ryo.Role(role)
	return u, err
}

// FindUser finds a person the bot knows by Telegram id or by @username
// (without the @, any case).
func (db *DB) FindUser(ctx context.Context, id int64, username string) (ryo.User, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+userColumns+` from users
		where ($1::bigint <> 0 and id = $1) or ($2 <> '' and lower(username) = lower($2)) order by id limit 1`, id, username)
	if err != nil {
		return ryo.User{}, false, db.fail("find user", err)
	}
	u, err := pgx.CollectExactlyOneRow(rows, scanUser)
	if errors.Is(err, pgx.ErrNoRows) {
		return ryo.User{}, false, nil
	}
	if err != nil {
		return ryo.User{}, false, db.fail("find user", err)
	}
	return u, true, nil
}

// SetAccess gives person id a role and lets them in (allowed) or not, as
// admin by decided; a person the bot has not seen yet is recorded by id.
// Someone refused before is told again, once, if still refused.
func (db *DB) SetAccess(ctx context.Context, id int64, role ryo.Role, allowed bool, by int64) (ryo.User, error) {
	var u ryo.User
	err := db.tx(ctx, "set access", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `insert into users (id, role, allowed, role_by, role_at, updated_at) values ($1, $2, $3, $4, $5, $5)
			on conflict (id) do update set role = excluded.role, allowed = excluded.allowed, role_by = excluded.role_by,
				role_at = excluded.role_at, updated_at = excluded.updated_at, refused_at = null
			returning `+userColumns, id, string(role), allowed, by, db.Now())
		if err != nil {
			return err
		}
		u, err = pgx.CollectExactlyOneRow(rows, scanUser)
		return err
	})
	return u, err
}

// Users returns the people the bot knows, admins and allowed people first,
// then the most recently seen, from offset, and how many there are.
func (db *DB) Users(ctx context.Context, offset, limit int) ([]ryo.User, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var total int
	if err := db.pool.QueryRow(ctx, `select count(*) from users where not is_bot`).Scan(&total); err != nil {
		return nil, 0, db.fail("count users", err)
	}
	rows, err := db.pool.Query(ctx, `select `+userColumns+` from users where not is_bot
		order by role = 'admin' desc, allowed desc, role = 'banned', updated_at desc, id offset $1 limit $2`, offset, limit)
	if err != nil {
		return nil, 0, db.fail("list users", err)
	}
	out, err := pgx.CollectRows(rows, scanUser)
	if err != nil {
		return nil, 0, db.fail("list users", err)
	}
	return out, total, nil
}

// refuseAgainAfter is how long a person who may not use the bot is not
// told so again.
const refuseAgainAfter = 24 * time.Hour

// Refuse records that person id was refused, and reports whether to tell
// them: once, and again only after a day, so that refusals never become
// noise.
func (db *DB) Refuse(ctx context.Context, id int64) (bool, error) {
	var tell bool
	err := db.tx(ctx, "refuse", func(tx pgx.Tx) error {
		now := db.Now()
		tag, err := tx.Exec(ctx, `update users set refused_at = $2 where id = $1 and (refused_at is null or refused_at < $3)`,
			id, now, now.Add(-refuseAgainAfter))
		tell = tag.RowsAffected() == 1
		return err
	})
	return tell, err
}
