package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/telegramtest"
)

// A group set up with /settings that Telegram turns into a supergroup —
// it gets a new id — keeps its settings there: the persona and answer
// mode its administrator set hold in the supergroup's next turn.
func TestSettingsFollowAGroupThatBecomesASupergroup(t *testing.T) {
	h := settingsHarness(t)
	club, super := telegramtest.NewGroup("Club"), telegramtest.NewSupergroup("Club")
	for _, c := range []telegramtest.Chat{club, super} {
		h.tg.SetMember(c, dora, telegramtest.StatusAdministrator)
		h.tg.SetMember(c, bob, telegramtest.StatusMember)
	}
	h.start()
	q := h.tg.SendText(club, dora, "/settings persona A cheerful quizmaster.")
	h.reply(club, q.ID, "The persona is set")
	q = h.tg.SendText(club, dora, "/settings mode every")
	h.reply(club, q.ID, "Here I answer every message")
	now := time.Now().Unix()
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 900001, "date": now,
		"from": map[string]any{"id": dora.ID, "is_bot": false, "first_name": dora.FirstName, "username": dora.Username},
		"chat": map[string]any{"id": club.ID, "title": club.Title, "type": "group"}, "migrate_to_chat_id": super.ID}})
	superChat := map[string]any{"id": super.ID, "title": super.Title, "type": "supergroup"}
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 1, "date": now,
		"from": groupAnonymousBot, "sender_chat": superChat, "chat": superChat, "migrate_from_chat_id": club.ID}})
	q = h.tg.SendText(super, bob, "what is the plan for tonight")
	h.answer(super, q.ID, "hello")
	if system := h.lastRequest().Messages[0].Content; !strings.Contains(system, "A cheerful quizmaster.") {
		t.Fatalf("the supergroup's turn was asked without the group's persona:\n%s", system)
	}
	set, err := h.db().ChatSettings(t.Context(), super.ID)
	if err != nil || set.Persona != "A cheerful quizmaster." || set.AnswerMode != "every" {
		t.Fatalf("the supergroup's settings are %+v, %v", set, err)
	}
}
