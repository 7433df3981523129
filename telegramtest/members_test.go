package telegramtest_test

import (
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

// getChatMember reports what a test set, a person who wrote in the chat as
// a member, anyone else as gone, and refuses an id no person has; the
// answers decode into the client's types, administrators' rights included.
func TestGetChatMember(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	group, bob := groupChat(), telegramtest.NewUser("Bob", "")
	carol := telegramtest.NewUser("Carol", "")
	s.SetMember(group, alice(), telegramtest.StatusAdministrator)
	s.SetMember(group, carol, telegramtest.StatusCreator)
	s.SendText(group, bob, "hi")
	want := map[int64]models.ChatMemberType{
		alice().ID: models.ChatMemberTypeAdministrator,
		carol.ID:   models.ChatMemberTypeOwner,
		bob.ID:     models.ChatMemberTypeMember,
		7999999999: models.ChatMemberTypeLeft,
	}
	for id, status := range want {
		m, err := b.GetChatMember(timeout(t), &bot.GetChatMemberParams{ChatID: group.ID, UserID: id})
		if err != nil || m.Type != status {
			t.Errorf("member %d = %+v, %v; want %s", id, m, err, status)
		}
	}
	if _, err := b.GetChatMember(timeout(t), &bot.GetChatMemberParams{ChatID: group.ID, UserID: group.ID}); err == nil {
		t.Error("a chat's id was taken for a person")
	}
	if _, err := b.GetChatMember(timeout(t), &bot.GetChatMemberParams{ChatID: -1009999999999, UserID: bob.ID}); err == nil {
		t.Error("a chat the bot is not in answered")
	}
}
