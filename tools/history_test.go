package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
)

// pastOf is a conversation's stored past that answers every search with
// the same messages, and remembers where it was asked to look.
type pastOf struct {
	hits  []ryo.Hit
	place ryo.Place
	skip  int64
	limit int
}

func (p *pastOf) SearchHistory(_ context.Context, place ryo.Place, _ string, skip int64, limit int) ([]ryo.Hit, error) {
	p.place, p.skip, p.limit = place, skip, limit
	return p.hits[:min(limit, len(p.hits))], nil
}

func historyTool(t *testing.T, p *pastOf) *toolbus.Registry {
	t.Helper()
	r := toolbus.NewRegistry()
	if err := r.Register(tools.HistorySearch(p)); err != nil {
		t.Fatal(err)
	}
	return r
}

// history_search looks only where it is called from, leaves out the
// message it answers, and shows each hit's date, author and link.
func TestHistorySearchLooksWhereItIsCalled(t *testing.T) {
	topic := ryo.Place{ChatID: -1001234567890, Thread: 4294967301}
	at := time.Date(2026, 3, 2, 14, 5, 0, 0, time.UTC)
	p := &pastOf{hits: []ryo.Hit{
		{Message: ryo.Message{Place: topic, Kind: ryo.KindUser, Sender: &ann, TelegramID: 2147483999, CreatedAt: at}, Excerpt: "deploy on Monday"},
		{Message: ryo.Message{Place: topic, Kind: ryo.KindAssistant, CreatedAt: at}, Excerpt: "Noted: Monday"},
	}}
	r := historyTool(t, p)
	caller := ryo.Caller{Person: ann, Chat: ryo.Chat{ID: topic.ChatID, Type: ryo.ChatSupergroup, IsForum: true}, Place: topic, Message: 77}
	res := run(r, ryo.WithCaller(context.Background(), caller), "history_search", `{"query":"deploy"}`)
	if res.Status != toolbus.StatusOK || p.place != topic || p.skip != 77 || p.limit != 5 {
		t.Fatalf("history_search = %+v; searched %+v skipping %d, limit %d", res, p.place, p.skip, p.limit)
	}
	var out struct {
		Messages []struct{ Date, Author, Excerpt, Link string }
	}
	if err := json.Unmarshal(res.Output, &out); err != nil || len(out.Messages) != 2 {
		t.Fatalf("output %s: %v", res.Output, err)
	}
	first, second := out.Messages[0], out.Messages[1]
	if first.Date != "2026-03-02 14:05 UTC" || first.Author != "Ann" || first.Excerpt != "deploy on Monday" ||
		first.Link != "https://t.me/c/1234567890/4294967301/2147483999" {
		t.Fatalf("first hit = %+v", first)
	}
	if second.Author != "ryo" || second.Link != "no link" {
		t.Fatalf("second hit = %+v; want ryo's answer without a Telegram id, so no link", second)
	}
	if res := run(r, context.Background(), "history_search", `{"query":"deploy"}`); res.Status != toolbus.StatusError {
		t.Fatalf("history_search without a caller = %+v", res)
	}
	for _, args := range []string{`{"query":""}`, `{"query":"   "}`, `{"query":"` + strings.Repeat("я", 201) + `"}`, `{"query":"x","limit":11}`} {
		if res := run(r, ryo.WithCaller(context.Background(), caller), "history_search", args); res.Status != toolbus.StatusError {
			t.Errorf("history_search(%s) = %+v; want refused", args, res)
		}
	}
}

// Telegram links messages of supergroups only: t.me/c/ and the id without
// its -100, with the topic's thread inside a topic.
func TestMessageLink(t *testing.T) {
	for _, tt := range []struct {
		chat ryo.Chat
		p    ryo.Place
		id   int
		want string
	}{
		{ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup}, ryo.Place{ChatID: -1001234567890}, 42, "https://t.me/c/1234567890/42"},
		{ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup, IsForum: true}, ryo.Place{ChatID: -1001234567890, Thread: 7}, 42, "https://t.me/c/1234567890/7/42"},
		{ryo.Chat{ID: -1009999999999, Type: ryo.ChatSupergroup}, ryo.Place{ChatID: -1009999999999}, 1, "https://t.me/c/9999999999/1"},
		{ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup}, ryo.Place{ChatID: -1001234567890}, 0, "no link"},
		{ryo.Chat{ID: 7123456789, Type: ryo.ChatPrivate}, ryo.Place{ChatID: 7123456789}, 42, "no link"},
		{ryo.Chat{ID: -4012345678, Type: ryo.ChatGroup}, ryo.Place{ChatID: -4012345678}, 42, "no link"},
	} {
		if got := tools.MessageLink(tt.chat, tt.p, tt.id); got != tt.want {
			t.Errorf("MessageLink(%d, %d, %d) = %q; want %q", tt.chat.ID, tt.p.Thread, tt.id, got, tt.want)
		}
	}
}

// While it runs, the status message says what it does, not its JSON.
func TestHistorySearchSaysWhatItDoes(t *testing.T) {
	if s := tools.HistorySearch(nil); s.Doing != "🔎 searching this chat's past" {
		t.Fatalf("Doing = %q", s.Doing)
	}
}
