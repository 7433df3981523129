package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ryo-bot/ryo"
)

// ErrBadURL is returned by Open for a database URL that cannot be parsed. It
// does not quote the URL, which may hold a password.
var ErrBadURL = errors.New("DATABASE_URL: not a valid PostgreSQL URL (postgres://user:password@host:5432/dbname)")

// DefaultQueryTimeout bounds every call to the database.
const DefaultQueryTimeout = 10 * time.Second

// DB is ryo's store on a PostgreSQL connection pool.
type DB struct {
	pool    *pgxpool.Pool
	timeout time.Duration
	// Clock is the time every statement writes and compares with; tests
	// replace it.
	Clock ryo.Clock
	// replica is this process's name among the replicas, once it joined
	// them: the inbox then claims and finishes only updates of the chats
	// whose lease it holds.
	replica atomic.Pointer[string]
}

// fence is the replica whose lease claims and finishes must hold; "" for
// none.
func (db *DB) fence() string {
	if id := db.replica.Load(); id != nil {
		return *id
	}
	return ""
}

// Now is the time on db's clock.
func (db *DB) Now() time.Time { return db.Clock.Now() }

// Option adjusts how Open connects.
type Option func(*openConfig)

type openConfig struct {
	tracer *ParamCheck
}

// Open connects to the database at url and checks that it answers. The
// error names the host and database, never the password.
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's parse errors quote the URL, password and all when it is
		// malformed enough; say what is wrong without it.
		return nil, ErrBadURL
	}
	var oc openConfig
	for _, o := range opts {
		o(&oc)
	}
	if oc.tracer != nil {
		cfg.ConnConfig.Tracer = oc.tracer
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to database %s: %w", where(cfg), err)
	}
	db := &DB{pool: pool, timeout: DefaultQueryTimeout, Clock: ryo.SystemClock{}}
	pingCtx, cancel := db.deadline(ctx)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to database %s: %w", where(cfg), ryo.Unavailable(ryo.Database, err))
	}
	return db, nil
}

func where(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("%q on %s:%d as user %q", c.Database, c.Host, c.Port, c.User)
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	if err := db.pool.Ping(ctx); err != nil {
		return db.fail("ping", err)
	}
	return nil
}

// Close closes every connection.
func (db *DB) Close() { db.pool.Close() }

func (db *DB) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, db.timeout)
}

// txAttempts is how often a transaction that lost a race to another one (a
// deadlock, or a serialization failure) is run: PostgreSQL aborted it so
// that the other could go on, and it goes on after.
const txAttempts = 3

// tx runs fn in a transaction with the query deadline, again when it lost a
// race to another transaction.
func (db *DB) tx(ctx context.Context, op string, fn func(pgx.Tx) error) error {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var err error
	for range txAttempts {
		if err = pgx.BeginFunc(ctx, db.pool, fn); !lostRace(err) {
			break
		}
	}
	if err != nil {
		return db.fail(op, err)
	}
	return nil
}

// exec runs one statement on its own, with the query deadline, again when
// it lost a race to another transaction: what tx does for one statement,
// without the two round trips of begin and commit.
func (db *DB) exec(ctx context.Context, op, sql string, args ...any) error {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var err error
	for range txAttempts {
		if _, err = db.pool.Exec(ctx, sql, args...); !lostRace(err) {
			break
		}
	}
	if err != nil {
		return db.fail(op, err)
	}
	return nil
}

// batch sends the statements build queues, with their callbacks, in one
// round trip and without begin or commit: PostgreSQL runs statements sent
// together and ended by one sync as one implicit transaction, all of them
// or none. Each statement sees what those before it wrote. The batch is
// sent again, built afresh, when it lost a race to another transaction.
func (db *DB) batch(ctx context.Context, op string, build func(*pgx.Batch)) error {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var err error
	for range txAttempts {
		b := &pgx.Batch{}
		build(b)
		if err = db.pool.SendBatch(ctx, b).Close(); !lostRace(err) {
			break
		}
	}
	if err != nil {
		return db.fail(op, err)
	}
	return nil
}

// lostRace reports whether PostgreSQL aborted a transaction for another's
// sake: a deadlock (40P01) or a serialization failure (40001).
func lostRace(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// fail wraps err with the operation's name, and as ryo.Unavailable when
// the database is out of reach.
func (db *DB) fail(op string, err error) error {
	if unavailable(err) {
		return fmt.Errorf("%s: %w", op, ryo.Unavailable(ryo.Database, err))
	}
	return fmt.Errorf("%s: %w", op, err)
}

func unavailable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 connection exceptions, 57P0x shutdowns, too many connections.
		code := pgErr.Code
		return code[:2] == "08" || code == "57P01" || code == "57P02" || code == "57P03" || code == "53300"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, pgconn.ErrConnClosed) ||
		pgconn.Timeout(err) || pgconn.SafeToRetry(err)
}
