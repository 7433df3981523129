package memory_test

import (
	"slices"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A replaced answer leaves the history, with its turn's tool results and
// its words in history_search; the new one takes its message.
func TestFinishReplacingKeepsOnlyTheNewAnswer(t *testing.T) {
	db := memorytest.Open(t)
	group := ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup, Title: "Team"}
	place := ryo.Place{ChatID: group.ID, Thread: 7}
	alice := ryo.User{ID: 7_123_456_789, FirstName: "Alice"}
	const asked, again = 9_000_000_001, 9_000_000_002
	q, err := db.SaveUserMessage(ctx(t), group, ryo.Message{Place: place, Sender: &alice, Kind: ryo.KindUser,
		Text: "capital of Spain?", TelegramID: 512_377, UpdateID: asked})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []ryo.Message{
		{Place: place, Kind: ryo.KindToolResult, Text: "search: Paris", UpdateID: asked},
		{Place: place, Kind: ryo.KindAssistant, Text: "Paris, surely.", TelegramID: 512_378, ReplyTo: 512_377, UpdateID: asked},
	} {
		if _, err := db.SaveAnswer(ctx(t), m, []string{"geo"}); err != nil {
			t.Fatal(err)
		}
	}
	old, ok, err := db.AnswerOfTurn(ctx(t), asked)
	if err != nil || !ok || old.Answer.Text != "Paris, surely." || old.Question.ID != q.ID || old.Question.Sender.ID != alice.ID {
		t.Fatalf("AnswerOfTurn = %+v, %v, %v", old, ok, err)
	}
	if newest, ok, err := db.NewestAnswer(ctx(t), place); err != nil || !ok || newest.ID != old.Answer.ID {
		t.Fatalf("NewestAnswer = %+v, %v, %v", newest, ok, err)
	}
	_, err = db.FinishReplacing(ctx(t), ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "Madrid.", TelegramID: 512_378,
		ReplyTo: 512_377, UpdateID: again}, []string{"geo"}, old.Answer)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := db.History(ctx(t), place, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Text)
	}
	if !slices.Equal(got, []string{"capital of Spain?", "Madrid."}) {
		t.Fatalf("history %q", got)
	}
	if hits, err := db.SearchHistory(ctx(t), place, "Paris", 0, 10); err != nil || len(hits) != 0 {
		t.Fatalf("history_search still finds the replaced answer: %v, %v", hits, err)
	}
	if _, ok, _ := db.AnswerOfTurn(ctx(t), asked); ok {
		t.Fatal("the replaced answer is still its turn's")
	}
	if now, ok, err := db.AnswerOfTurn(ctx(t), again); err != nil || !ok || now.Question.ID != q.ID {
		t.Fatalf("the new answer's turn: %+v, %v, %v", now, ok, err)
	}
}

// The newest edit wins, by edit date and then update; an edit run again
// still counts as applied; an edit that changes nothing, or of a message
// never stored, is not applied.
func TestApplyEditKeepsTheNewest(t *testing.T) {
	db := memorytest.Open(t)
	dm := ryo.Chat{ID: 7_123_456_789, Type: ryo.ChatPrivate}
	place := ryo.Place{ChatID: dm.ID}
	alice := ryo.User{ID: dm.ID, FirstName: "Alice"}
	if _, err := db.SaveUserMessage(ctx(t), dm, ryo.Message{Place: place, Sender: &alice, Kind: ryo.KindUser,
		Text: "helo", TelegramID: 41, UpdateID: 9_000_000_001}); err != nil {
		t.Fatal(err)
	}
	edit := func(text string, date, update int64) memory.Edit {
		return memory.Edit{Place: place, TelegramID: 41, Text: text, Date: date, Update: update}
	}
	for _, tt := range []struct {
		name   string
		e      memory.Edit
		newest bool
		text   string
	}{
		{"an edit", edit("hello", 1_763_812_345, 9_000_000_010), true, "hello"},
		{"the same edit run again", edit("hello", 1_763_812_345, 9_000_000_010), true, "hello"},
		{"an older edit, later", edit("hallo", 1_763_812_300, 9_000_000_011), false, "hello"},
		{"an edit of the same second, earlier", edit("hallo", 1_763_812_345, 9_000_000_009), false, "hello"},
		{"an edit that changes nothing", edit("hello", 1_763_812_400, 9_000_000_012), false, "hello"},
		{"a newer edit", edit("hello!", 1_763_812_400, 9_000_000_013), true, "hello!"},
		{"an edit of a message never stored", memory.Edit{Place: place, TelegramID: 42, Text: "x", Date: 1_763_812_500, Update: 9_000_000_014}, false, "hello!"},
	} {
		m, newest, _, err := db.ApplyEdit(ctx(t), tt.e)
		if err != nil || newest != tt.newest || newest && m.Text != tt.text {
			t.Fatalf("%s: ApplyEdit = %q, %v, %v; want %v", tt.name, m.Text, newest, err, tt.newest)
		}
		msgs, err := db.History(ctx(t), place, 10)
		if err != nil || len(msgs) != 1 || msgs[0].Text != tt.text {
			t.Fatalf("%s: stored %+v, %v; want %q", tt.name, msgs, err, tt.text)
		}
	}
}
