package memory

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Retention is how long ryo keeps what it keeps only for a while; a zero
// duration keeps it forever.
type Retention struct {
	Updates time.Duration // inbox updates, after they are done; retried dead letters, after their retry
	Views   time.Duration // paged lists' views, after they were sent
	Actions time.Duration // actions and their audit log, after they ended
	Context time.Duration // group messages kept as context only, after they were written
	Files   time.Duration // the text of files people sent the bot to read, after it was read
	Usage   time.Duration // what each answered turn cost (/stats, quotas), after it was answered
	// Batch is how many rows one statement deletes at most, each batch in
	// a transaction of its own; 0 means sweepBatch.
	Batch int
}

// sweepBatch is how many rows one batch of a sweep deletes at most: a
// batch holds its locks for a moment only, and the bot goes on meanwhile.
const sweepBatch = 500

// Swept counts what a sweep deleted.
type Swept struct {
	Updates     int // finished inbox updates, with what their turns remembered
	DeadLetters int // dead letters retried long ago
	Views       int
	Actions     int // ended actions, each with its audit log
	Memories    int // expired memories
	Context     int // group messages kept as context only
	Files       int // files people sent, their text and passages (the messages stay)
	Usage       int // what answered turns cost
}

// Total is how many rows the sweep deleted in all (audit entries and turns
// not counted apart).
func (s Swept) Total() int {
	return s.Updates + s.DeadLetters + s.Views + s.Actions + s.Memories + s.Context + s.Files + s.Usage
}

// Sweep deletes what is past its retention, in batches, and counts it:
//
//   - inbox updates done longer ago than r.Updates, and failed ones whose
//     dead letter no longer waits (the turns table's rows go with them);
//     updates still pending or being handled are never swept;
//   - dead letters an admin retried longer ago than r.Updates, unless their
//     update waits in the inbox again; letters that wait for an admin are
//     never swept: only the admin decides about them;
//   - views sent longer ago than r.Views (their buttons stop working);
//   - actions that ended (executed, interrupted, cancelled, expired) longer
//     ago than r.Actions, with their audit log; actions that wait for a
//     yes, are confirmed or run, or whose prompt does not show its outcome
//     yet, are never swept;
//   - memories whose time is up (deleted, not hidden);
//   - group messages kept as context only, written longer ago than
//     r.Context; what people asked the bot and what it answered is never
//     swept;
//   - the text of files people sent the bot to read, read longer ago
//     than r.Files: the messages they came with stay;
//   - what turns answered longer ago than r.Usage cost.
//
// The times are the store's clock's now, once for the whole sweep. A sweep
// cut short (ctx ended, the database away) returns what it deleted so far
// with the error; the next sweep goes on where it stopped.
func (db *DB) Sweep(ctx context.Context, r Retention) (Swept, error) {
	now := db.Now()
	batch := r.Batch
	if batch <= 0 {
		batch = sweepBatch
	}
	var s Swept
	steps := []struct {
		on     bool // false: kept forever
		cutoff time.Time
		count  *int
		op     string
		sql    string
	}{
		{r.Updates != 0, now.Add(-r.Updates), &s.DeadLetters, "sweep dead letters", sweepDeadLetters},
		{r.Updates != 0, now.Add(-r.Updates), &s.Updates, "sweep updates", sweepUpdates},
		{r.Views != 0, now.Add(-r.Views), &s.Views, "sweep views", sweepViews},
		{r.Actions != 0, now.Add(-r.Actions), &s.Actions, "sweep actions", sweepActions},
		{true, now, &s.Memories, "sweep expired memories", sweepMemories}, // a memory's own time is its retention
		{r.Context != 0, now.Add(-r.Context), &s.Context, "sweep context", sweepContext},
		{r.Files != 0, now.Add(-r.Files), &s.Files, "sweep files", sweepFiles},
		{r.Usage != 0, now.Add(-r.Usage), &s.Usage, "sweep usage", sweepUsage},
	}
	for _, st := range steps {
		if !st.on {
			continue
		}
		n, err := db.deleteInBatches(ctx, st.op, st.sql, batch, st.cutoff)
		*st.count += n
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// The sweeps' statements: each deletes at most $1 rows older than $2.
const (
	sweepDeadLetters = `delete from dead_letters where update_id in (
		select d.update_id from dead_letters d
		where d.retried_at < $2
			and not exists (select 1 from updates u where u.update_id = d.update_id and u.state in ('pending', 'processing'))
		order by d.retried_at limit $1)`
	sweepUpdates = `delete from updates where update_id in (
		select u.update_id from updates u
		where u.state in ('done', 'failed') and u.finished_at < $2
			and not exists (select 1 from dead_letters d where d.update_id = u.update_id and d.retried_at is null)
		order by u.finished_at limit $1)`
	sweepViews = `delete from views where id in (
		select id from views where created_at < $2 order by created_at limit $1)`
	sweepActions = `delete from actions where id in (
		select id from actions
		where state in ('executed', 'cancelled', 'expired', 'interrupted')
			and coalesce(executed_at, decided_at, created_at) < $2
			and (prompt_settled or prompt_message_id is null)
		order by coalesce(executed_at, decided_at, created_at) limit $1)`
	sweepMemories = `delete from memories where id in (
		select id from memories where expires_at <= $2 order by expires_at limit $1)`
	sweepContext = `delete from messages where id in (
		select id from messages where context_only and created_at < $2 order by created_at limit $1)`
	sweepFiles = `delete from knowledge_documents where id in (
		select id from knowledge_documents where message_id is not null and added_at < $2 order by added_at limit $1)`
	sweepUsage = `delete from usage where update_id in (
		select update_id from usage where at < $2 order by at limit $1)`
)

// deleteInBatches runs a delete of at most batch rows, given as $1 (the
// rest of args follow), in a transaction of its own, until a batch deletes
// fewer, and returns how many rows it deleted in all.
func (db *DB) deleteInBatches(ctx context.Context, op, sql string, batch int, args ...any) (int, error) {
	total := 0
	for {
		var n int
		err := db.tx(ctx, op, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, sql, append([]any{batch}, args...)...)
			n = int(tag.RowsAffected())
			return err
		})
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
}
