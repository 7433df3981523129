// Package migrations holds ryo's database schema as numbered SQL files
// (NNNN_name.sql), embedded in the binary. memory applies them in order at
// start, each in its own transaction, under an advisory lock, and records each
// one in schema_migrations. A file, once released, is never edited: a change
// is a new file.
package migrations
