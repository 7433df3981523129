package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
)

// GroupCalls keeps, in the database, the Telegram calls this process made
// in groups while they still count against a group's twenty a minute, and
// reads those other processes made: a ryo started again, or a replica
// taking a group over, would otherwise start counting from zero and draw
// Telegram's 429s. Record only notes a call; Run writes them, a few times
// a second, in one statement.
type GroupCalls struct {
	db      *DB
	process string // this process's mark on its rows

	mu      sync.Mutex
	pending []groupCall
	written chan struct{} // pokes Run when the first call waits
}

type groupCall struct {
	chat  int64
	until time.Time
}

// flushEvery is how long a call waits at most before it is written.
const flushEvery = 100 * time.Millisecond

// NewGroupCalls returns db's record of calls in groups for this process.
func NewGroupCalls(db *DB) *GroupCalls {
	mark := make([]byte, 8)
	rand.Read(mark)
	return &GroupCalls{db: db, process: hex.EncodeToString(mark), written: make(chan struct{}, 1)}
}

// Record notes that a call in group chat counts until until. It never
// blocks.
func (g *GroupCalls) Record(chat int64, until time.Time) {
	g.mu.Lock()
	g.pending = append(g.pending, groupCall{chat, until})
	first := len(g.pending) == 1
	g.mu.Unlock()
	if first {
		select {
		case g.written <- struct{}{}:
		default:
		}
	}
}

// Others returns when each call other processes made in chat stops
// counting, for the calls that still count.
func (g *GroupCalls) Others(ctx context.Context, chat int64) ([]time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second) // a Telegram call waits for it
	defer cancel()
	rows, err := g.db.pool.Query(ctx, `select until from group_calls
		where chat_id = $1::bigint and until > $2 and process <> $3`, chat, g.db.Now(), g.process)
	if err != nil {
		return nil, g.db.fail("group calls", err)
	}
	until, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
	if err != nil {
		return nil, g.db.fail("group calls", err)
	}
	return until, nil
}

// Run writes the calls noted until ctx ends, and once more then; calls
// that cannot be written while the database is away wait for the next
// try. Rows past their minute are deleted now and then.
func (g *GroupCalls) Run(ctx context.Context) {
	var pruned time.Time
	for {
		select {
		case <-g.written:
		case <-ctx.Done():
			g.flush(context.WithoutCancel(ctx))
			return
		}
		if !ryo.Sleep(ctx, g.db.Clock, flushEvery) {
			g.flush(context.WithoutCancel(ctx))
			return
		}
		g.flush(ctx)
		if now := g.db.Now(); now.Sub(pruned) > time.Minute {
			pruned = now
			g.prune(ctx)
		}
	}
}

func (g *GroupCalls) flush(ctx context.Context) {
	g.mu.Lock()
	calls := g.pending
	g.pending = nil
	g.mu.Unlock()
	if len(calls) == 0 {
		return
	}
	chats := make([]int64, len(calls))
	until := make([]time.Time, len(calls))
	for i, c := range calls {
		chats[i], until[i] = c.chat, c.until
	}
	ctx, cancel := g.db.deadline(ctx)
	defer cancel()
	_, err := g.db.pool.Exec(ctx, `insert into group_calls (chat_id, until, process)
		select chat, until, $3 from unnest($1::bigint[], $2::timestamptz[]) as c (chat, until)
		where until > $4`, chats, until, g.process, g.db.Now())
	if err != nil {
		now := g.db.Now()
		calls = slices.DeleteFunc(calls, func(c groupCall) bool { return !c.until.After(now) })
		g.mu.Lock()
		g.pending = append(calls, g.pending...) // tried again with the next ones
		g.mu.Unlock()
		select {
		case g.written <- struct{}{}:
		default:
		}
	}
}

func (g *GroupCalls) prune(ctx context.Context) {
	ctx, cancel := g.db.deadline(ctx)
	defer cancel()
	g.db.pool.Exec(ctx, "delete from group_calls where until <= $1", g.db.Now())
}
