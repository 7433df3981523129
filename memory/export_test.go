package memory

import (
	"context"
	"testing"
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
