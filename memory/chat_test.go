package memory_test

import (
	"context"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A chat seen again as it was is not written again — each message would
// otherwise leave a dead row behind and cost a WAL record — while a chat
// whose title, username or kind changed is.
func TestAChatSeenAgainUnchangedIsNotRewritten(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	ctx := context.Background()
	chat := ryo.Chat{ID: -1002345678901, Type: ryo.ChatSupergroup, Title: "Ряд ✨", Username: "row"}
	version := func() int {
		return memorytest.Count(t, url, `select xmin::text::bigint from chats where id = $1`, chat.ID)
	}
	if err := db.SaveChat(ctx, chat); err != nil {
		t.Fatal(err)
	}
	first := version()
	if err := db.SaveChat(ctx, chat); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != first {
		t.Errorf("the unchanged chat was written again (row version %d → %d)", first, v)
	}
	chat.Title = "Ряд ✨ (archive)"
	if err := db.SaveChat(ctx, chat); err != nil {
		t.Fatal(err)
	}
	if v := version(); v == first {
		t.Error("the chat's new title was not written")
	}
	if n := memorytest.Count(t, url, `select count(*) from chats where id = $1 and title = $2`, chat.ID, chat.Title); n != 1 {
		t.Errorf("chats with the new title: %d", n)
	}
}
