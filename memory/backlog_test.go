package memory_test

import (
	"testing"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// The backlog counts what waits and nothing else: unfinished updates,
// actions whose yes may still come, dead letters nobody retried.
func TestBacklog(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	if b, err := db.Backlog(c); err != nil || b != (memory.Backlog{}) {
		t.Fatalf("Backlog of an empty store = %+v, %v", b, err)
	}
	memorytest.Exec(t, url, `insert into updates (update_id, chat_id, kind, raw, state) values
		(987654321, 7123456789, 'message', '{}', 'pending'),
		(987654322, -1001234567890, 'message', '{}', 'processing'),
		(987654323, 7123456789, 'message', '{}', 'done'),
		(987654324, 7123456789, 'message', '{}', 'failed');
	insert into actions (id, chat_id, requester_id, update_id, call_id, tool, arguments, arguments_hash, idempotency_key,
		reason, state, created_at, expires_at) values
		('a1', -1001234567890, 7123456789, 987654322, 'c1', 'forget', '{}', 'h', 'k1', 'destructive', 'pending', now(), now() + interval '10 minutes'),
		('a2', -1001234567890, 7123456789, 987654322, 'c2', 'forget', '{}', 'h', 'k2', 'destructive', 'pending', now() - interval '1 hour', now() - interval '1 minute'),
		('a3', -1001234567890, 7123456789, 987654322, 'c3', 'forget', '{}', 'h', 'k3', 'destructive', 'executed', now(), now() + interval '10 minutes');
	insert into dead_letters (update_id, chat_id, kind, raw, stage, error, died_at, retried_at) values
		(987654324, 7123456789, 'message', '\x7b7d', 'process', 'boom', now(), null),
		(987654325, 7123456789, 'message', '\x7b7d', 'store', 'refused', now(), null),
		(987654326, 7123456789, 'message', '\x7b7d', 'process', 'boom', now(), now())`)
	want := memory.Backlog{Inbox: 2, PendingActions: 1, DeadLetters: 2}
	if b, err := db.Backlog(c); err != nil || b != want {
		t.Fatalf("Backlog = %+v, %v; want %+v", b, err, want)
	}
}
