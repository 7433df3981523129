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
	ID      string
	Kind    string
	Viewer  int64
	Chat    int64
	Subject json.RawMessage
	Update  int64 // the command that asked for it
	// Message is the message the view was sent as, once it is recorded (by
	// the command's turn); 0 until then. Its buttons work only there.
	Message   int
	CreatedAt time.Time
}

// SaveView stores v.
func (db *DB) SaveView(ctx context.Context, v View) error {
	if len(v.Subject) == 0 {
		v.Subject = json.RawMessage(`{}`)
	}
	return db.tx(ctx, "save view", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into views (id, kind, viewer_id, chat_id, subject, update_id, created_at)
			values ($1, $2, $3, $4, $5, nullif($6::bigint, 0), $7)
			on conflict (id) do nothing`, v.ID, v.Kind, v.Viewer, v.Chat, v.Subject, v.Update, db.Now())
		return err
	})
}

// View returns the view with id.
func (db *DB) View(ctx context.Context, id string) (View, bool, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var v View
	err := db.pool.QueryRow(ctx, `select v.id, v.kind, v.viewer_id, v.chat_id, v.subject, coalesce(v.update_id, 0),
			coalesce(t.status_message_id, 0), v.created_at
		from views v left join turns t on t.update_id = v.update_id where v.id = $1`, id).
		Scan(&v.ID, &v.Kind, &v.Viewer, &v.Chat, &v.Subject, &v.Update, &v.Message, &v.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return View{}, false, nil
	}
	if err != nil {
		return View{}, false, db.fail("load view", err)
	}
	return v, true, nil
}
