package memory

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// View is a paged list a person was sent: what it lists, and for whom.
type View struct {
	ID        string
	Kind      string
	Viewer    int64
	Chat      int64
	Subject   json.RawMessage
	CreatedAt time.Time
}

// SaveView stores v.
func (db *DB) SaveView(ctx context.Context, v View) error {
	if len(v.Subject) == 0 {
		v.Subject = json.RawMessage(`{}`)
	}
	return db.tx(ctx, "save view", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into views (id, kind, viewer_id, chat_id, subject, created_at) values ($1, $2, $3, $4, $5, $6)
			on conflict (id) do nothing`, v.ID, v.Kind, v.Viewer, v.Chat, v.Subject, db.Now())
		return err
	})
}

// View returns the view with id.
func (db *DB) View(ctx context.Context, id string) (View, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var v View
	err := db.pool.QueryRow(ctx, `select id, kind, viewer_id, chat_id, subject, created_at from views where id = $1`, id).
		Scan(&v.ID, &v.Kind, &v.Viewer, &v.Chat, &v.Subject, &v.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return View{}, false, nil
	}
	if err != nil {
		return View{}, false, db.fail("load view", err)
	}
	return v, true, nil
}
