package memory_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// What a message's turn reads as it begins, in one round trip, is what
// each read on its own finds, its sender stored first.
func TestStartTurnFindsWhatEachReadFinds(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID, Thread: 3}
	const turn, later = 1<<32 + 40, 1<<32 + 41
	for _, id := range []int64{turn, later} {
		raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"chat":{"id":%d}}}`, id, id, group.ID))
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: group.ID, Sender: alice.ID, Kind: "message", Raw: raw}}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := db.StartTurn(c, alice, group.ID, turn, 20)
	if err != nil || !first.Standing.Known || first.Sender.Role != ryo.RoleUser || !first.Prior.CreatedAt.IsZero() {
		t.Fatalf("StartTurn for someone new = %+v, %v; want them stored, then known to the quota", first, err)
	}
	if err := db.SetChatLanguage(c, group.ID, alice.ID, "ru"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetPersonQuota(c, alice.ID, "5/day", alice.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveTurnStatus(c, turn, place, 42); err != nil {
		t.Fatal(err)
	}
	s, err := db.StartTurn(c, alice, group.ID, turn, 20)
	if err != nil {
		t.Fatal(err)
	}
	prior, _ := db.Turn(c, turn)
	waiting, _ := db.LaterFrom(c, group.ID, alice.ID, turn, 20)
	settings, _ := db.TurnSettings(c, group.ID)
	standing, _ := db.QuotaStandingOf(c, alice.ID)
	for what, pair := range map[string][2]any{
		"prior": {s.Prior, prior}, "later": {s.Later, waiting}, "settings": {s.Settings, settings}, "standing": {s.Standing, standing},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: StartTurn found %+v, its own read %+v", what, pair[0], pair[1])
		}
	}
	if s.Prior.StatusMessageID != 42 || len(s.Later) != 1 || s.Settings.Language != "ru" || !s.Standing.Own {
		t.Errorf("StartTurn = %+v; want the status message, one later message, the chat's language and the quota", s)
	}
}

// A turn's message, its take of the chosen tool and its read of the
// history are all or nothing, and the same when the turn runs again.
func TestOpenTurnStoresTakesAndReadsAllOrNothing(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	place := ryo.Place{ChatID: group.ID, Thread: 5}
	if _, err := db.SaveUser(c, alice, false); err != nil {
		t.Fatal(err)
	}
	const turn = 1<<32 + 50
	raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"message_id":50,"chat":{"id":%d}}}`, turn, group.ID))
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: turn, ChatID: group.ID, Sender: alice.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatal(err)
	}
	if err := db.ForceTool(c, alice.ID, place, "statistics", db.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	open := memory.TurnOpening{Chat: group, Person: alice.ID, Place: place, UpdateID: turn, Limit: 10,
		Message: &ryo.Message{Place: place, Sender: &alice, Kind: ryo.KindUser, Text: "how many?", TelegramID: 50, UpdateID: turn}}
	memorytest.Exec(t, url, `create function refuse_message() returns trigger language plpgsql as $$
		begin raise exception 'refused message %', new.telegram_message_id; end $$;
		create trigger refuse_message before insert on messages for each row execute function refuse_message()`)
	if _, err := db.OpenTurn(c, open); err == nil || !strings.Contains(err.Error(), "refused message 50") {
		t.Fatalf("OpenTurn = %v; want the message refused", err)
	}
	if f, ok, err := db.ForcedToolFor(c, alice.ID, place); err != nil || !ok || f.Tool != "statistics" {
		t.Fatalf("ForcedToolFor = %+v, %v, %v; a turn whose message was refused took the tool", f, ok, err)
	}
	if n := memorytest.Count(t, url, `select count(*) from chats`); n != 0 {
		t.Errorf("%d chats stored with a refused message", n)
	}
	memorytest.Exec(t, url, `drop trigger refuse_message on messages`)
	var first memory.OpenedTurn
	for run := range 2 { // the turn, and the turn again after a crash
		o, err := db.OpenTurn(c, open)
		if err != nil || o.Stored.ID == 0 || o.Forced != "statistics" || len(o.History) != 1 || o.History[0].ID != o.Stored.ID {
			t.Fatalf("run %d: OpenTurn = %+v, %v; want the message stored and read back, the tool taken", run, o, err)
		}
		if run == 0 {
			first = o
		} else if o.Stored.ID != first.Stored.ID {
			t.Errorf("the turn run again stored its message as %d, first as %d", o.Stored.ID, first.Stored.ID)
		}
	}
}
