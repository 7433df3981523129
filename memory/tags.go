package memory

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// TagUse is how much a tag is used, by messages and memories together.
type TagUse struct {
	Tag      string
	Count    int
	LastSeen time.Time
}

// TagUses returns the most used tags, most used first, from offset, and
// how many tags there are.
func (db *DB) TagUses(ctx context.Context, offset, limit int) ([]TagUse, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	const all = `select tag, created_at as at from message_tags
		union all select unnest(tags), updated_at from memories`
	var total int
	if err := db.pool.QueryRow(ctx, `select count(distinct tag) from (`+all+`) t`).Scan(&total); err != nil {
		return nil, 0, db.fail("count tags", err)
	}
	rows, err := db.pool.Query(ctx, `select tag, count(*), max(at) from (`+all+`) t
		group by tag order by 2 desc, 3 desc, 1 offset $1 limit $2`, offset, limit)
	if err != nil {
		return nil, 0, db.fail("tag uses", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (TagUse, error) {
		var u TagUse
		return u, row.Scan(&u.Tag, &u.Count, &u.LastSeen)
	})
	if err != nil {
		return nil, 0, db.fail("tag uses", err)
	}
	return out, total, nil
}

// Tagged is a message or a memory that carries a tag.
type Tagged struct {
	Kind string // "message" or "memory"
	ID   int64
	Chat int64
	Who  string // the message's sender or the memory's owner, by name
	Text string
	At   time.Time
}

// TaggedWith returns the newest messages and memories that carry tag,
// from offset, and how many there are.
func (db *DB) TaggedWith(ctx context.Context, tag string, offset, limit int) ([]Tagged, int, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	const all = `select 'message' as kind, m.id, m.chat_id, coalesce(m.sender_id, 0) as who, m.text, m.created_at as at
			from message_tags t join messages m on m.id = t.message_id where t.tag = $1
		union all
		select 'memory', m.id, m.chat_id, m.owner_id, m.content, m.updated_at from memories m where $1 = any(m.tags)`
	var total int
	if err := db.pool.QueryRow(ctx, `select count(*) from (`+all+`) x`, tag).Scan(&total); err != nil {
		return nil, 0, db.fail("count tagged", err)
	}
	rows, err := db.pool.Query(ctx, `select x.kind, x.id, x.chat_id,
			coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), nullif(u.username, ''), ''), x.text, x.at
		from (`+all+`) x left join users u on u.id = x.who
		order by x.at desc, x.id desc offset $2 limit $3`, tag, offset, limit)
	if err != nil {
		return nil, 0, db.fail("tagged", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Tagged, error) {
		var t Tagged
		return t, row.Scan(&t.Kind, &t.ID, &t.Chat, &t.Who, &t.Text, &t.At)
	})
	if err != nil {
		return nil, 0, db.fail("tagged", err)
	}
	return out, total, nil
}

// RenameTag renames tag old to new on every message and memory, merging it
// into new where that is there already, and reports how many uses moved.
func (db *DB) RenameTag(ctx context.Context, old, new string) (int, error) {
	var moved int
	err := db.tx(ctx, "rename tag", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `insert into message_tags (message_id, tag, created_at)
			select message_id, $2, created_at from message_tags where tag = $1 on conflict do nothing`, old, new)
		if err != nil {
			return err
		}
		deleted, err := tx.Exec(ctx, `delete from message_tags where tag = $1`, old)
		if err != nil {
			return err
		}
		mems, err := tx.Exec(ctx, `update memories set tags = array(select distinct unnest(array_replace(tags, $1, $2))),
				search = `+searchOf("content", "array(select distinct unnest(array_replace(tags, $1, $2)))")+`
			where $1 = any(tags)`, old, new)
		moved = int(max(tag.RowsAffected(), deleted.RowsAffected()) + mems.RowsAffected())
		return err
	})
	return moved, err
}

// DeleteTag removes tag from every message and memory, and reports from
// how many.
func (db *DB) DeleteTag(ctx context.Context, tag string) (int, error) {
	var n int
	err := db.tx(ctx, "delete tag", func(tx pgx.Tx) error {
		msgs, err := tx.Exec(ctx, `delete from message_tags where tag = $1`, tag)
		if err != nil {
			return err
		}
		mems, err := tx.Exec(ctx, `update memories set tags = array_remove(tags, $1),
				search = `+searchOf("content", "array_remove(tags, $1)")+` where $1 = any(tags)`, tag)
		n = int(msgs.RowsAffected() + mems.RowsAffected())
		return err
	})
	return n, err
}
