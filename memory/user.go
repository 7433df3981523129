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
// /start. It is one round trip, and one transaction.
func (db *DB) SaveUser(ctx context.Context, u ryo.User, started bool) (ryo.User, error) {
	err := db.batch(ctx, "save user", func(b *pgx.Batch) { queueUser(b, &u, started, db.Now()) })
	return u, err
}

// usernameLock is the first key of the advisory lock a transaction holds
// while it stores who has a username (the second is the name's hash), so
// that two sightings of one name at once are judged one after the other.
const usernameLock int32 = 0x72796f02

// queueUser queues the statements that save *u, and has the role stored
// for them land in it. A username belongs to one account at a time: anyone
// stored with it who was seen with it before this sighting loses it; and
// when someone else was seen with it later, this sighting is out of date,
// and u is stored without it. The statements hold the name's lock from the
// first, so each sees what a sighting of the same name before it wrote.
func queueUser(b *pgx.Batch, u *ryo.User, started bool, now time.Time) {
	// A name is stored as Telegram's text is: with what PostgreSQL's text
	// refuses (NUL, bytes that are not UTF-8) replaced.
	u.Username, u.FirstName, u.LastName = storableText(u.Username), storableText(u.FirstName), storableText(u.LastName)
	u.LanguageCode = storableText(u.LanguageCode)
	seen := u.Seen
	if seen.IsZero() || seen.After(now) {
		seen = now // a clock ahead of the bot's claims no later sighting than now
	}
	if u.Username != "" {
		b.Queue(`select pg_advisory_xact_lock($1, hashtext(lower($2)))`, usernameLock, u.Username)
		b.Queue(`update users set username = '' where username <> '' and lower(username) = lower($1) and id <> $2::bigint
			and (username_seen_at is null or username_seen_at < $3)`, u.Username, u.ID, seen)
	}
	b.Queue(`insert into users (id, username, first_name, last_name, language_code, is_bot, started_at, updated_at, username_seen_at)
		values ($1::bigint,
			case when $2::text = '' or exists (select 1 from users where username <> '' and lower(username) = lower($2::text)
				and id <> $1::bigint and username_seen_at > $9::timestamptz) then '' else $2::text end,
			$3, $4, $5, $6, case when $7 then $8::timestamptz end, $8, $9::timestamptz)
		on conflict (id) do update set
			username = case when users.username_seen_at > excluded.username_seen_at then users.username else excluded.username end,
			username_seen_at = greatest(users.username_seen_at, excluded.username_seen_at),
			first_name = excluded.first_name, last_name = excluded.last_name, language_code = excluded.language_code,
			is_bot = excluded.is_bot, started_at = coalesce(users.started_at, excluded.started_at), updated_at = excluded.updated_at
		returning role, allowed`,
		u.ID, u.Username, u.FirstName, u.LastName, u.LanguageCode, u.IsBot, started, now, seen).QueryRow(func(row pgx.Row) error {
		var role string
		err := row.Scan(&role, &u.Allowed)
		u.Role = ryo.Role(role)
		return err
	})
}

const userColumns = `id, username, first_name, last_name, language_code, is_bot, role, allowed, username_seen_at, coalesce(tier, '')`

func scanUser(row pgx.CollectableRow) (ryo.User, error) {
	var u ryo.User
	var role string
	var seen *time.Time
	err := row.Scan(&u.ID, &u.Username, &u.FirstName, &u.LastName, &u.LanguageCode, &u.IsBot, &role, &u.Allowed, &seen, &u.Tier)
	u.Role = ryo.Role(role)
	if seen != nil {
		u.Seen = *seen
	}
	return u, err
}

// FindUser finds a person the bot knows by Telegram id.
func (db *DB) FindUser(ctx context.Context, id int64) (ryo.User, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+userColumns+` from users where id = $1::bigint`, id)
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

// UsersNamed finds who has @username now (given without the @, in any
// case): whoever was seen with it last. It is one person, or none; several
// when the newest sightings came at the same moment, or when only people
// stored before sightings were kept claim it — the name is then theirs to
// tell apart by id.
func (db *DB) UsersNamed(ctx context.Context, username string) ([]ryo.User, error) {
	if username == "" {
		return nil, nil
	}
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	rows, err := db.pool.Query(ctx, `select `+userColumns+` from users
		where username <> '' and lower(username) = lower($1) and username_seen_at is not distinct from
			(select max(username_seen_at) from users where username <> '' and lower(username) = lower($1))
		order by id`, username)
	if err != nil {
		return nil, db.fail("find users by name", err)
	}
	out, err := pgx.CollectRows(rows, scanUser)
	if err != nil {
		return nil, db.fail("find users by name", err)
	}
	return out, nil
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

// SetTier puts person id in tier ("" for the default tier), as admin by
// decided; a person the bot has not seen yet is recorded by id.
func (db *DB) SetTier(ctx context.Context, id int64, tier string, by int64) (ryo.User, error) {
	var u ryo.User
	err := db.tx(ctx, "set tier", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `insert into users (id, tier, tier_by, tier_at, updated_at)
			values ($1::bigint, nullif($2::text, ''), $3::bigint, $4::timestamptz, $4::timestamptz)
			on conflict (id) do update set tier = excluded.tier, tier_by = excluded.tier_by, tier_at = excluded.tier_at,
				updated_at = excluded.updated_at
			returning `+userColumns, id, tier, by, db.Now())
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
