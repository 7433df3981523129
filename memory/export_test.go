package memory

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Transient is transient, for tests.
var Transient = transient

// MustExec runs sql on db's pool; for tests only.
func MustExec(t *testing.T, db *DB, sql string) {
	t.Helper()
	if _, err := db.pool.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Tx runs fn in one of db's transactions, as the store runs its own; for
// tests only.
func Tx(ctx context.Context, db *DB, fn func(pgx.Tx) error) error {
	return db.tx(ctx, "test", fn)
}

// Count runs a query that counts rows, on db's pool; for tests only.
func Count(t *testing.T, db *DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}
