package telegramtest_test

import (
	"encoding/json"
	"testing"
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
