package memory

import (
	"context"
	"errors"
	"time"

	"github.com/ryo-bot/ryo"
)

// instanceLock is the advisory lock key a running ryo holds, so that a
// second one started on the same database refuses to run: it would resume
// the first one's turns and answer them twice. The lock is per schema (the
// second key is the schema's hash), as the schema holds the inbox.
const instanceLock int32 = 0x72796f01

// ErrAnotherInstance is returned by LockInstance while another ryo runs on
// the database.
var ErrAnotherInstance = errors.New("another ryo is already running on this database; stop it first (two would answer the same messages)")

// LockInstance takes the instance lock on a connection of its own, waiting
// up to wait for a previous instance to let go of it (a killed process's
// connection takes a moment to close). release gives it back.
func (db *DB) LockInstance(ctx context.Context, wait time.Duration) (release func(), err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.fail("lock instance", err)
	}
	deadline := db.Now().Add(wait)
	for {
		var ok bool
		if err := conn.QueryRow(ctx, "select pg_try_advisory_lock($1, hashtext(current_schema()))", instanceLock).Scan(&ok); err != nil {
			conn.Release()
			return nil, db.fail("lock instance", err)
		}
		if ok {
			break
		}
		if !db.Now().Before(deadline) {
			conn.Release()
			return nil, ErrAnotherInstance
		}
		if !ryo.Sleep(ctx, db.Clock, 200*time.Millisecond) {
			conn.Release()
			return nil, ctx.Err()
		}
	}
	return func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		conn.Exec(unlockCtx, "select pg_advisory_unlock($1, hashtext(current_schema()))", instanceLock)
		conn.Release()
	}, nil
}
