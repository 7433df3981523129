package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// refusePoison makes the inbox refuse every update whose message says
// "poison", the way a bug in ryo or a change in Telegram could make it
// refuse an update; the returned func is the fix.
func refusePoison(t *testing.T, url string) (fix func()) {
	t.Helper()
	memorytest.Exec(t, url, `create function refuse_poison() returns trigger language plpgsql as $$
		begin
			if new.raw -> 'message' ->> 'text' = 'poison' then
				raise exception 'poisoned update %', new.update_id;
			end if;
			return new;
		end $$;
		create trigger refuse_poison before insert on updates for each row execute function refuse_poison()`)
	return func() { memorytest.Exec(t, url, `drop trigger refuse_poison on updates`) }
}

func update(id, chat int64, body string) memory.InboxUpdate {
	return memory.InboxUpdate{ID: id, ChatID: chat, Kind: "message", Raw: json.RawMessage(body)}
}

// One update the inbox refuses does not hold up the others in its batch:
// it goes to the dead letter, exactly as it came, and comes back when
// revived after the fix. Escapes and bytes that jsonb refuses are not
// refused at all.
func TestRefusedUpdateGoesToTheDeadLetter(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	fix := refusePoison(t, url)
	poison := update(987654322, -1001234567890, `{"update_id":987654322,"message":{"text":"poison","chat":{"id":-1001234567890}}}`)
	batch := []memory.InboxUpdate{
		update(987654321, 7123456789, `{"update_id":987654321,"message":{"text":"hello","chat":{"id":7123456789}}}`),
		poison,
		update(987654323, 7123456789, `{"update_id":987654323,"message":{"text":"a\u0000b","from":{"first_name":"\u0000"},"n":9007199254740993}}`),
		update(987654324, 7123456789, "{\"update_id\":987654324,\"message\":{\"text\":\"bad \xff bytes\"}}"),
		update(987654325, 7123456789, `{"update_id":987654325,"message":{"text":"lone \ud800 surrogate, pair \ud83d\ude00"}}`),
	}
	refused, err := db.StoreUpdates(c, batch)
	if err != nil || len(refused) != 1 || refused[0].Update.ID != poison.ID || !strings.Contains(refused[0].Reason, "poisoned update") ||
		!refused[0].First {
		t.Fatalf("StoreUpdates = %+v, %v; want the poisoned update refused and the rest stored", refused, err)
	}
	// A crash before Telegram heard of the batch: it comes again. The
	// refused update is refused again, but is no news.
	if again, err := db.StoreUpdates(c, batch); err != nil || len(again) != 1 || again[0].First {
		t.Fatalf("StoreUpdates again = %+v, %v; want the same update refused, not for the first time", again, err)
	}
	if un, _ := db.Unfinished(c); ids(un) != "987654321,987654323,987654324,987654325" {
		t.Fatalf("Unfinished = %s; want every update but the poisoned one", ids(un))
	}
	for id, want := range map[int64]string{
		987654323: `{"update_id":987654323,"message":{"text":"a�b","from":{"first_name":"�"},"n":9007199254740993}}`,
		987654324: `{"update_id":987654324,"message":{"text":"bad � bytes"}}`,
		987654325: `{"update_id":987654325,"message":{"text":"lone � surrogate, pair 😀"}}`,
	} {
		claim, _, err := db.ClaimUpdate(c, id)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "the stored update", claim.Raw, json.RawMessage(want))
	}
	letters, total, err := db.DeadLetters(c, 0, 10)
	if err != nil || total != 1 || letters[0].UpdateID != poison.ID || letters[0].ChatID != poison.ChatID ||
		letters[0].Stage != memory.DeadAtStore || string(letters[0].Raw) != string(poison.Raw) {
		t.Fatalf("DeadLetters = %+v, %d, %v; want the poisoned update as it came", letters, total, err)
	}
	if _, err := db.Revive(c, poison.ID); err == nil || !strings.Contains(err.Error(), "still refuses") {
		t.Fatalf("Revive before the fix = %v; want it still refused", err)
	}
	if n, _ := db.DeadCount(c); n != 1 {
		t.Fatalf("DeadCount after a failed revive = %d; want 1", n)
	}
	fix()
	got, err := db.Revive(c, poison.ID)
	if err != nil || got.ID != poison.ID || got.ChatID != poison.ChatID {
		t.Fatalf("Revive after the fix = %+v, %v", got, err)
	}
	if n, _ := db.DeadCount(c); n != 0 {
		t.Fatalf("DeadCount after reviving = %d; want 0", n)
	}
	if claim, ok, err := db.ClaimUpdate(c, poison.ID); err != nil || !ok || claim.Attempts != 1 {
		t.Fatalf("the revived update cannot be claimed: %+v, %v, %v", claim, ok, err)
	}
	if _, err := db.Revive(c, poison.ID); !errors.Is(err, memory.ErrNotDead) {
		t.Fatalf("Revive again = %v; want ErrNotDead", err)
	}
}

// A batch the database fails part way through, for a reason that may go
// away, stores none of its updates: the batch is not acknowledged to
// Telegram, comes again, and nothing is stored twice or half.
func TestABatchFailedPartWayStoresNothing(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	memorytest.Exec(t, url, `create function refuse_busy() returns trigger language plpgsql as $$
		begin
			if new.raw -> 'message' ->> 'text' = 'busy' then
				raise exception 'lock not available for %', new.update_id using errcode = '55P03';
			end if;
			return new;
		end $$;
		create trigger refuse_busy before insert on updates for each row execute function refuse_busy()`)
	batch := []memory.InboxUpdate{
		update(987654331, 7123456789, `{"update_id":987654331,"message":{"text":"hello"}}`),
		update(987654332, 7123456789, `{"update_id":987654332,"message":{"text":"busy"}}`),
		update(987654333, 7123456789, `{"update_id":987654333,"message":{"text":"there"}}`),
	}
	refused, err := db.StoreUpdates(c, batch)
	if err == nil || !memory.Transient(err) || len(refused) > 0 {
		t.Fatalf("StoreUpdates = %+v, %v; want a transient error and nothing refused", refused, err)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates`); n != 0 {
		t.Fatalf("%d updates stored by a batch that failed; want none", n)
	}
	if n, _ := db.DeadCount(c); n != 0 {
		t.Fatalf("DeadCount = %d; want 0", n)
	}
	memorytest.Exec(t, url, `drop trigger refuse_busy on updates`)
	if refused, err := db.StoreUpdates(c, batch); err != nil || len(refused) > 0 {
		t.Fatalf("StoreUpdates again = %+v, %v", refused, err)
	}
	if un, _ := db.Unfinished(c); ids(un) != "987654331,987654332,987654333" {
		t.Fatalf("Unfinished = %s; want the whole batch", ids(un))
	}
}

// An update whose handling failed stays failed in the inbox and waits in
// the dead letter; revived, it starts again with its attempts counted anew,
// and failing again buries it again.
func TestFailedUpdateGoesToTheDeadLetter(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	u := update(1<<31+9, -1009876543210, `{"update_id":2147483657,"message":{"text":"boom","chat":{"id":-1009876543210}}}`)
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{u}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		db.ClaimUpdate(c, u.ID)
	}
	if err := db.FailUpdate(c, u.ID, "gave up after 3 attempts"); err != nil {
		t.Fatal(err)
	}
	if state, _, _ := db.UpdateState(c, u.ID); state != memory.StateFailed {
		t.Fatalf("state = %s; want failed", state)
	}
	letters, _, err := db.DeadLetters(c, 0, 10)
	if err != nil || len(letters) != 1 || letters[0].Stage != memory.DeadAtProcess || letters[0].Attempts != 3 ||
		letters[0].Error != "gave up after 3 attempts" || letters[0].ChatID != u.ChatID {
		t.Fatalf("DeadLetters = %+v, %v", letters, err)
	}
	sameJSON(t, "the dead update", letters[0].Raw, u.Raw)
	if _, err := db.Revive(c, u.ID); err != nil {
		t.Fatal(err)
	}
	if claim, ok, _ := db.ClaimUpdate(c, u.ID); !ok || claim.Attempts != 1 {
		t.Fatalf("revived claim = %+v, %v; want attempt 1", claim, ok)
	}
	if err := db.FailUpdate(c, u.ID, "failed again"); err != nil {
		t.Fatal(err)
	}
	if letters, _, _ = db.DeadLetters(c, 0, 10); len(letters) != 1 || letters[0].Retries != 1 || letters[0].Error != "failed again" {
		t.Fatalf("DeadLetters after failing again = %+v", letters)
	}
	// A finished update cannot fail: nothing is buried.
	if err := db.FailUpdate(c, 42, "no such update"); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.DeadCount(c); n != 1 {
		t.Fatalf("DeadCount = %d; want 1", n)
	}
}

// Only what is about the data refuses an update: a database that is away,
// busy or losing a race refuses nothing, and the batch is stored later.
func TestTransientErrorsRefuseNothing(t *testing.T) {
	for _, tt := range []struct {
		err       error
		transient bool
	}{
		{&pgconn.ConnectError{}, true},
		{context.DeadlineExceeded, true},
		{io.ErrUnexpectedEOF, true},
		{&pgconn.PgError{Code: "40001"}, true},  // serialization failure
		{&pgconn.PgError{Code: "40P01"}, true},  // deadlock
		{&pgconn.PgError{Code: "57P01"}, true},  // admin shutdown
		{&pgconn.PgError{Code: "53300"}, true},  // too many connections
		{&pgconn.PgError{Code: "55P03"}, true},  // lock not available
		{&pgconn.PgError{Code: "22P05"}, false}, // untranslatable character: \u0000 in jsonb
		{&pgconn.PgError{Code: "22021"}, false}, // not UTF-8
		{&pgconn.PgError{Code: "P0001"}, false}, // raised by a trigger
		{&pgconn.PgError{Code: "23514"}, false}, // check constraint
		{errors.New("failed to encode args[1]: unable to encode 7123456789 into binary format for int4"), false},
	} {
		if got := memory.Transient(tt.err); got != tt.transient {
			t.Errorf("transient(%v) = %v; want %v", tt.err, got, tt.transient)
		}
	}
}

// Two transactions that each hold what the other waits for: PostgreSQL
// aborts one of them, and the store runs it again instead of failing (two
// people swapping usernames at the same moment, say).
func TestATransactionThatLostARaceRunsAgain(t *testing.T) {
	db := memorytest.Open(t)
	memory.MustExec(t, db, `create table race (id bigint primary key, n int not null default 0);
		insert into race (id) values (7123456789), (6012345678)`)
	var held sync.WaitGroup
	held.Add(2)
	swap := func(first, second int64) error {
		attempt := 0
		return memory.Tx(context.Background(), db, func(tx pgx.Tx) error {
			attempt++
			if _, err := tx.Exec(context.Background(), `update race set n = n + 1 where id = $1::bigint`, first); err != nil {
				return err
			}
			if attempt == 1 { // both hold their first row before either asks for its second
				held.Done()
				held.Wait()
			}
			_, err := tx.Exec(context.Background(), `update race set n = n + 1 where id = $1::bigint`, second)
			return err
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- swap(7123456789, 6012345678) }()
	go func() { errs <- swap(6012345678, 7123456789) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a transaction that lost a race failed: %v", err)
		}
	}
}
