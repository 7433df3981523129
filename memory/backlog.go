package memory

import "context"

// Backlog is the work that waits in the store.
type Backlog struct {
	Inbox          int64 // updates not finished: waiting, or being answered
	PendingActions int64 // actions waiting for a person's yes, not expired
	DeadLetters    int64 // updates in the dead letter, not retried
}

// Backlog counts the work that waits, in one statement on the partial
// indexes of each table.
func (db *DB) Backlog(ctx context.Context) (Backlog, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var b Backlog
	err := db.pool.QueryRow(ctx, `select
		(select count(*) from updates where state in ('pending', 'processing')),
		(select count(*) from actions where state = 'pending' and expires_at > $1::timestamptz),
		(select count(*) from dead_letters where retried_at is null)`, db.Now()).Scan(&b.Inbox, &b.PendingActions, &b.DeadLetters)
	if err != nil {
		return Backlog{}, db.fail("count the backlog", err)
	}
	return b, nil
}
