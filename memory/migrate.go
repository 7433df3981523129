package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ryo-bot/ryo/migrations"
)

// migrationLock is the advisory lock key held while migrating, so that two
// processes starting at once apply each file once.
const migrationLock = 0x72796f // "ryo"

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

type migration struct {
	version int
	name    string
	sql     string
}

// Migrate applies the embedded migrations that the database lacks, each in
// its own transaction, and returns the names of those it applied. It refuses
// a database whose schema is newer than this binary.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	all, err := loadMigrations(migrations.FS)
	if err != nil {
		return nil, err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, db.fail("migrate", err)
	}
	defer conn.Release()
	// A session lock belongs to the connection that took it: take and release
	// it on this one.
	if _, err := conn.Exec(ctx, "select pg_advisory_lock($1)", migrationLock); err != nil {
		return nil, db.fail("migrate: lock", err)
	}
	defer func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		conn.Exec(unlockCtx, "select pg_advisory_unlock($1)", migrationLock)
	}()
	return db.applyMigrations(ctx, conn, all)
}

func (db *DB) applyMigrations(ctx context.Context, conn *pgxpool.Conn, all []migration) ([]string, error) {
	_, err := conn.Exec(ctx, `create table if not exists schema_migrations (
		version integer primary key,
		name text not null,
		applied_at timestamptz not null default now())`)
	if err != nil {
		return nil, db.fail("migrate: bookkeeping", err)
	}
	done, err := appliedVersions(ctx, conn)
	if err != nil {
		return nil, db.fail("migrate: read applied", err)
	}
	if newest := slices.Max(append(done, 0)); newest > all[len(all)-1].version {
		return nil, fmt.Errorf("migrate: the database schema is at version %d, newer than this ryo knows (%d): run a newer ryo", newest, all[len(all)-1].version)
	}
	var applied []string
	for _, m := range all {
		if slices.Contains(done, m.version) {
			continue
		}
		if err := applyMigration(ctx, conn, m); err != nil {
			return applied, db.fail("migrate "+m.name, err)
		}
		applied = append(applied, m.name)
	}
	return applied, nil
}

func applyMigration(ctx context.Context, conn *pgxpool.Conn, m migration) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// Without arguments Exec uses the simple protocol, which runs a
		// whole file of statements.
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "insert into schema_migrations (version, name) values ($1, $2)", int32(m.version), m.name)
		return err
	})
}

func appliedVersions(ctx context.Context, conn *pgxpool.Conn) ([]int, error) {
	rows, err := conn.Query(ctx, "select version from schema_migrations")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// loadMigrations reads and orders the migration files, refusing badly named
// files and duplicate versions.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var all []migration
	for _, name := range names {
		match := migrationName.FindStringSubmatch(name)
		if match == nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_words.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		version, _ := strconv.Atoi(match[1])
		if len(all) > 0 && all[len(all)-1].version == version {
			return nil, fmt.Errorf("migration %s: version %d is used twice", name, version)
		}
		all = append(all, migration{version: version, name: name, sql: string(body)})
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no migrations embedded")
	}
	return all, nil
}

// SchemaVersion returns the newest migration applied to the database (0 for
// an empty one) and the newest this binary knows.
func (db *DB) SchemaVersion(ctx context.Context) (applied, known int, err error) {
	all, err := loadMigrations(migrations.FS)
	if err != nil {
		return 0, 0, err
	}
	known = all[len(all)-1].version
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	err = db.pool.QueryRow(ctx, `select coalesce(max(version), 0) from schema_migrations`).Scan(&applied)
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // no bookkeeping table yet
			return 0, known, nil
		}
		return 0, known, db.fail("schema version", err)
	}
	return applied, known, nil
}
