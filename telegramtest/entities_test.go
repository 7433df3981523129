package telegramtest_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

type rawEntity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
}

func TestSendTextEntitiesUseUTF16Offsets(t *testing.T) {
	tests := []struct {
		text string
		want []rawEntity
	}{
		{"/start", []rawEntity{{"bot_command", 0, 6}}},
		{"/start@ryo_bot now", []rawEntity{{"bot_command", 0, 14}}},
		{"Привет 👋 @ryo_bot", []rawEntity{{"mention", 10, 8}}},
		{"😀😀 /help and @alice_b, @ab", []rawEntity{{"bot_command", 5, 5}, {"mention", 15, 8}}},
		{"mail a@example.com or a/b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s := newServer(t)
			m := s.SendText(aliceChat(), alice(), tt.text)
			var got struct {
				Entities []rawEntity `json:"entities"`
			}
			if err := json.Unmarshal(m.Raw, &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Entities) != len(tt.want) {
				t.Fatalf("entities = %+v, want %+v", got.Entities, tt.want)
			}
			for i := range tt.want {
				if got.Entities[i] != tt.want[i] {
					t.Errorf("entity %d = %+v, want %+v", i, got.Entities[i], tt.want[i])
				}
			}
		})
	}
}

// A message the bot sends with a link to a person mentions that person, as
// Telegram's would: the bot gets a text_mention back, and the test sees it
// with Message.Entities.
func TestSentMentionIsRecorded(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(groupChat(), alice(), "hi")
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{
		ChatID: groupChat().ID, ParseMode: models.ParseModeHTML,
		Text: `Ask <a href="tg://user?id=5123456789">Bob</a> or <a href="https://example.com">the site</a>`,
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if len(sent.Entities) != 2 || sent.Entities[0].Type != models.MessageEntityTypeTextMention ||
		sent.Entities[0].User == nil || sent.Entities[0].User.ID != 5123456789 {
		t.Fatalf("entities returned = %+v; want a mention of 5123456789 first", sent.Entities)
	}
	m := s.BotMessages(groupChat().ID)[0]
	got := m.Entities()
	want := []telegramtest.Entity{
		{Type: "text_mention", Offset: 4, Length: 3, UserID: 5123456789},
		{Type: "text_link", Offset: 11, Length: 8, URL: "https://example.com"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Entities() = %+v; want %+v", got, want)
	}
	if text := got[0].In("Ask Bob or the site"); text != "Bob" {
		t.Errorf("the mention covers %q; want Bob", text)
	}
}
