package memory

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// ParamCheck catches the statement that would stop the bot on Telegram's
// real ids. PostgreSQL gives each parameter a type from where it stands: a
// parameter compared with the literal 0, or put in nullif with it, becomes a
// 32-bit integer, and pgx
// then refuses any value beyond 2³¹ — a supergroup's id, a new account's —
// while tests with small ids pass. A store opened WithParamCheck notes every
// statement it runs with a 64-bit integer argument; Verify asks PostgreSQL
// which type each of those parameters has and names every one that is not
// bigint, whatever values the test happened to use.
//
// It also tells, between Record and Recorded, each round trip to the
// database in order: a statement, a begin or commit, or a batch sent at
// once — what a turn costs PostgreSQL and ryo's syscalls, counted.
type ParamCheck struct {
	mu        sync.Mutex
	seen      map[string][]bool // statement → which arguments are 64-bit integers
	recording bool
	trips     []string // the statements of each round trip since Record; a batch's joined by " ; "
}

// Record starts telling round trips afresh.
func (c *ParamCheck) Record() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recording, c.trips = true, nil
}

// Recorded stops telling round trips and returns those made since Record,
// each as its statements' first words.
func (c *ParamCheck) Recorded() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recording = false
	return c.trips
}

// trip tells one round trip of sql, when recording; inBatch adds sql to
// the batch begun last.
func (c *ParamCheck) trip(sql string, inBatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.recording {
		return
	}
	sql = strings.Join(strings.Fields(sql), " ")
	if len(sql) > 90 {
		sql = sql[:90] + "…"
	}
	if inBatch && len(c.trips) > 0 {
		c.trips[len(c.trips)-1] += " ; " + sql
		return
	}
	c.trips = append(c.trips, sql)
}

// NewParamCheck returns an empty check.
func NewParamCheck() *ParamCheck { return &ParamCheck{seen: map[string][]bool{}} }

// WithParamCheck has Open report every statement to c.
func WithParamCheck(c *ParamCheck) Option {
	return func(cfg *openConfig) { cfg.tracer = c }
}

func (c *ParamCheck) note(sql string, args []any) {
	wide := make([]bool, len(args))
	any64 := false
	for i, a := range args {
		wide[i] = is64(reflect.TypeOf(a))
		any64 = any64 || wide[i]
	}
	if !any64 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.seen[sql]; ok {
		for i := range min(len(prev), len(wide)) {
			wide[i] = wide[i] || prev[i]
		}
	}
	c.seen[sql] = wide
}

// is64 reports whether values of t are 64-bit integers, alone, behind a
// pointer or in a slice. (Go's int is 64 bits wide on every platform ryo
// runs on.)
func is64(t reflect.Type) bool {
	if t == nil {
		return false
	}
	if k := t.Kind(); k == reflect.Pointer || k == reflect.Slice || k == reflect.Array {
		return is64(t.Elem())
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		return true
	}
	return false
}

// Verify prepares every noted statement on db and returns one line for each
// 64-bit argument whose parameter PostgreSQL types narrower than bigint.
func (c *ParamCheck) Verify(ctx context.Context, db *DB) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	statements := make([]string, 0, len(c.seen))
	for sql := range c.seen {
		statements = append(statements, sql)
	}
	sort.Strings(statements)
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return []string{fmt.Sprintf("parameter check: %v", err)}
	}
	defer conn.Release()
	var problems []string
	for _, sql := range statements {
		sd, err := conn.Conn().Prepare(ctx, "", sql)
		if err != nil {
			problems = append(problems, fmt.Sprintf("parameter check: prepare %q: %v", sql, err))
			continue
		}
		for i, wide := range c.seen[sql] {
			if wide && i < len(sd.ParamOIDs) && !wideOID(sd.ParamOIDs[i]) {
				problems = append(problems, fmt.Sprintf("$%d takes a 64-bit integer, but PostgreSQL types it %s: cast it ($%d::bigint) in %q",
					i+1, typeName(conn.Conn(), sd.ParamOIDs[i]), i+1, sql))
			}
		}
	}
	return problems
}

func wideOID(oid uint32) bool {
	switch oid {
	case pgtype.Int8OID, pgtype.Int8ArrayOID, pgtype.NumericOID, pgtype.NumericArrayOID:
		return true
	}
	return false
}

func typeName(conn *pgx.Conn, oid uint32) string {
	if t, ok := conn.TypeMap().TypeForOID(oid); ok {
		return t.Name
	}
	return fmt.Sprintf("oid %d", oid)
}

// The tracer side: pgx reports every statement, alone or in a batch.

func (c *ParamCheck) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.note(d.SQL, d.Args)
	c.trip(d.SQL, false)
	return ctx
}

func (c *ParamCheck) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *ParamCheck) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trip("batch:", false)
	return ctx
}

func (c *ParamCheck) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	c.note(d.SQL, d.Args)
	c.trip(d.SQL, true)
}

func (c *ParamCheck) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
