package memorytest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo/memory"
)

// EnvVar names the test database server.
const EnvVar = "RYO_TEST_DATABASE_URL"

// URL returns the URL of a new empty schema, dropped when tb ends.
func URL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s is not set; CI must run the PostgreSQL tests (make test sets it)", EnvVar)
		}
		tb.Skipf("%s is not set; skipping a PostgreSQL test (make test sets it)", EnvVar)
	}
	schema := "test_" + randomHex(8)
	Exec(tb, base, "create schema "+schema)
	tb.Cleanup(func() { Exec(tb, base, "drop schema "+schema+" cascade") })
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated store on a new empty schema.
func Open(tb testing.TB) *memory.DB {
	tb.Helper()
	return OpenURL(tb, URL(tb))
}

// OpenURL returns a migrated store on the database at url, closed when tb ends.
func OpenURL(tb testing.TB, url string) *memory.DB {
	tb.Helper()
	db, _ := OpenWatched(tb, url)
	return db
}

// OpenWatched is OpenURL, with the check that watches every statement
// the store runs: it can also record the round trips some work makes.
func OpenWatched(tb testing.TB, url string) (*memory.DB, *memory.ParamCheck) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := memory.NewParamCheck()
	db, err := memory.Open(ctx, url, memory.WithParamCheck(check))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(db.Close)
	// Runs before Close: every statement the test ran must take 64-bit ids.
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, problem := range check.Verify(ctx, db) {
			tb.Error(problem)
		}
	})
	if _, err := db.Migrate(ctx); err != nil {
		tb.Fatal(err)
	}
	return db, check
}

// Exec runs sql on the database at dsn, failing tb when it fails: for
// tests that must set up what no method of the store does, as time passing.
func Exec(tb testing.TB, dsn, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// Count runs a query that counts rows on the database at dsn, with args,
// failing tb when it fails: for tests that check what is left in a table
// no method of the store reads.
func Count(tb testing.TB, dsn, sql string, args ...any) int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
