package memory

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// ForcedTool is a tool a person chose for their next message in a place.
type ForcedTool struct {
	Tool    string
	Expires time.Time
}

// ForceTool makes tool the one person's next message in place goes to,
// until expires; it replaces the tool chosen there before and still
// waiting. A tool a turn took stays that turn's while it may run (again):
// the new choice waits for the message after.
func (db *DB) ForceTool(ctx context.Context, person int64, place ryo.Place, tool string, expires time.Time) error {
	return db.exec(ctx, "force tool", `with served as (
			delete from forced_tools f where f.user_id = $1::bigint and f.chat_id = $2::bigint and f.thread_id = $3::bigint
				and f.used_by is not null and not exists (select 1 from updates u where u.update_id = f.used_by and u.state <> 'done'))
		insert into forced_tools (user_id, chat_id, thread_id, tool, set_at, expires_at, used_by)
		values ($1::bigint, $2::bigint, $3::bigint, $4::text, $5::timestamptz, $6::timestamptz, null)
		on conflict (user_id, chat_id, thread_id) where used_by is null do update set tool = excluded.tool, set_at = excluded.set_at,
			expires_at = excluded.expires_at`,
		person, place.ChatID, int64(place.Thread), tool, db.Now(), expires)
}

// ForcedToolFor returns the tool person chose for their next message in
// place and not yet used, if it has not lapsed.
func (db *DB) ForcedToolFor(ctx context.Context, person int64, place ryo.Place) (ForcedTool, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var f ForcedTool
	err := db.pool.QueryRow(ctx, `select tool, expires_at from forced_tools
		where user_id = $1::bigint and chat_id = $2::bigint and thread_id = $3::bigint and used_by is null and expires_at > $4::timestamptz`,
		person, place.ChatID, int64(place.Thread), db.Now()).Scan(&f.Tool, &f.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return ForcedTool{}, false, nil
	}
	if err != nil {
		return ForcedTool{}, false, db.fail("find forced tool", err)
	}
	return f, true, nil
}

// TakeForcedTool gives the turn answering updateID the tool person chose
// for their next message in place, and marks it used by that turn; ""
// when there is none, or it lapsed. The same turn, run again after an
// interruption, gets the same tool, however late; storing its answer
// deletes it.
func (db *DB) TakeForcedTool(ctx context.Context, person int64, place ryo.Place, updateID int64) (string, error) {
	var tool string
	err := db.batch(ctx, "take forced tool", func(b *pgx.Batch) { queueTakeForcedTool(b, person, place, updateID, db.Now(), &tool) })
	return tool, err
}

// queueTakeForcedTool queues what TakeForcedTool does, and has the tool
// taken land in *tool.
func queueTakeForcedTool(b *pgx.Batch, person int64, place ryo.Place, updateID int64, now time.Time, tool *string) {
	*tool = ""
	// One statement: the lapsed choices the delete drops and the one the
	// turn gets are told apart by the same conditions, so that neither
	// needs to see what the other did. A lapsed choice goes, unless a turn
	// that took it may still run (again): its update waits, runs, or failed
	// and may be retried. The turn gets the tool it took already, kept
	// while it may run, even when its person chose another meanwhile;
	// else it takes the choice waiting, when it has not lapsed.
	b.Queue(`with gone as (
			delete from forced_tools f where f.user_id = $1::bigint and f.expires_at <= $5::timestamptz
				and (f.used_by is null or not exists (select 1 from updates u where u.update_id = f.used_by and u.state <> 'done'))),
		mine as (
			select tool from forced_tools
			where user_id = $1::bigint and chat_id = $2::bigint and thread_id = $3::bigint and used_by = $4::bigint
				and (expires_at > $5::timestamptz or exists (select 1 from updates u where u.update_id = $4::bigint and u.state <> 'done'))),
		taken as (
			update forced_tools set used_by = $4::bigint
			where user_id = $1::bigint and chat_id = $2::bigint and thread_id = $3::bigint
				and used_by is null and expires_at > $5::timestamptz
				and not exists (select 1 from forced_tools o where o.user_id = $1::bigint and o.chat_id = $2::bigint
					and o.thread_id = $3::bigint and o.used_by = $4::bigint)
			returning tool)
		select coalesce((select tool from mine limit 1), (select tool from taken), '')`,
		person, place.ChatID, int64(place.Thread), updateID, now).QueryRow(func(row pgx.Row) error {
		return row.Scan(tool)
	})
}

// UnforceTool drops the tool person chose for their next message in place,
// and reports whether one was waiting (chosen, not used, not lapsed).
func (db *DB) UnforceTool(ctx context.Context, person int64, place ryo.Place) (bool, error) {
	var waiting bool
	err := db.tx(ctx, "unforce tool", func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `delete from forced_tools
			where user_id = $1::bigint and chat_id = $2::bigint and thread_id = $3::bigint and used_by is null
			returning expires_at > $4::timestamptz`, person, place.ChatID, int64(place.Thread), db.Now()).Scan(&waiting)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return waiting, err
}
