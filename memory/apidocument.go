package memory

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// APIDocument is the last good OpenAPI document of one configured API.
type APIDocument struct {
	API          string
	Document     []byte
	URL          string // where it was fetched from
	ETag         string // "" when the server sent none
	LastModified string // as the server sent it; "" when none
	Fetched      time.Time
}

// SaveAPIDocument keeps d as its API's last good document, in place of
// the one before.
func (db *DB) SaveAPIDocument(ctx context.Context, d APIDocument) error {
	return db.tx(ctx, "save API document", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into api_documents (api, document, document_url, etag, last_modified, fetched_at)
			values ($1::text, $2::bytea, $3::text, $4::text, $5::text, $6::timestamptz)
			on conflict (api) do update set document = excluded.document, document_url = excluded.document_url,
				etag = excluded.etag, last_modified = excluded.last_modified, fetched_at = excluded.fetched_at`,
			d.API, d.Document, d.URL, d.ETag, d.LastModified, d.Fetched)
		return err
	})
}

// APIDocumentOf returns api's last good document, and false when none was
// kept.
func (db *DB) APIDocumentOf(ctx context.Context, api string) (APIDocument, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	d := APIDocument{API: api}
	err := db.pool.QueryRow(ctx, `select document, document_url, etag, last_modified, fetched_at
		from api_documents where api = $1::text`, api).Scan(&d.Document, &d.URL, &d.ETag, &d.LastModified, &d.Fetched)
	if errors.Is(err, pgx.ErrNoRows) {
		return APIDocument{}, false, nil
	}
	if err != nil {
		return APIDocument{}, false, db.fail("find API document", err)
	}
	return d, true, nil
}
