// Package memorytest gives tests a real, empty, migrated PostgreSQL database of
// their own.
//
// The server is named by RYO_TEST_DATABASE_URL. Each call creates a fresh
// schema on it and returns a URL whose search_path points there, so tests run
// in parallel without seeing each other's rows; the schema is dropped when
// the test ends. Without the variable the test is skipped, naming it, except
// under CI=true, where a missing database is a failure.
//
// A store opened here checks, when its test ends, that every statement the
// test ran with a 64-bit integer argument gives that parameter the type
// bigint (memory.ParamCheck): a parameter PostgreSQL types as a 32-bit
// integer refuses Telegram's real ids, whatever ids the test used.
package memorytest
