package memory_test

import (
	"encoding/json"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// Text PostgreSQL would refuse — U+0000, in a person's message or the
// model's answer and its metadata — is stored with U+FFFD in its place, so
// that the turn still ends.
func TestNULIsStoredAsReplacement(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	person := ryo.User{ID: 7123456789, FirstName: "Zoë"}
	chat := ryo.Chat{ID: person.ID, Type: ryo.ChatPrivate}
	place := ryo.Place{ChatID: chat.ID}
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{update(987654321, chat.ID, `{"update_id":987654321}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveUserMessage(c, chat, ryo.Message{Place: place, Sender: &person, Kind: ryo.KindUser,
		Text: "a\x00b", TelegramID: 5001, UpdateID: 987654321}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveTurnAnswer(c, 987654321, place, "c\x00d", json.RawMessage(`{"why":"e\u0000f"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishTurn(c, ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "c\x00d",
		Metadata: json.RawMessage(`{"why":"e\u0000f"}`), UpdateID: 987654321}, nil); err != nil {
		t.Fatal(err)
	}
	hist, err := db.History(c, place, 10)
	if err != nil || len(hist) != 2 || hist[0].Text != "a\uFFFDb" || hist[1].Text != "c\uFFFDd" {
		t.Fatalf("History = %+v, %v", hist, err)
	}
	sameJSON(t, "the answer's metadata", hist[1].Metadata, json.RawMessage(`{"why":"e\uFFFDf"}`))
	if turn, _ := db.Turn(c, 987654321); turn.Answer != "c\uFFFDd" {
		t.Fatalf("turn answer = %q", turn.Answer)
	}
}
