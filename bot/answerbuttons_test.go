package bot

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stages"
)

func TestParseRegenerate(t *testing.T) {
	const update, chat = 987654321987, -1001234567890
	data := regenerateData(update, chat)
	if len(data) > 64 {
		t.Fatalf("regenerate data %q is longer than Telegram's 64 bytes", data)
	}
	if u, c, ok := parseRegenerate(data); !ok || u != update || c != chat {
		t.Fatalf("parseRegenerate(%q) = %d, %d, %v", data, u, c, ok)
	}
	if len(regenerateData(9223372036854775807, -9223372036854775808)) > 64 {
		t.Fatal("the widest ids do not fit Telegram's 64 bytes")
	}
	for _, bad := range []string{"", "r1:", "r1::", "r1:1", "r1:1:", "r1::5", "r1:0:5", "r1:-1:5", "r1:1:0", "r1:01:5", "r1:1:-05",
		"r1:+1:5", "r1:1:+5", "r1:1:5:6", "r1: 1:5", "r1:1:5 ", "r2:1:5", "R1:1:5", "s1:1:5", "r1:9223372036854775808:5",
		"r1:１:5", "r1:1:٥", "r1:0x1:5"} {
		if u, c, ok := parseRegenerate(bad); ok {
			t.Errorf("parseRegenerate(%q) = %d, %d; want refused", bad, u, c)
		}
	}
}

func FuzzParseRegenerate(f *testing.F) {
	f.Add("r1:987654321:-1001234567890")
	f.Add("r1:01:5")
	f.Fuzz(func(t *testing.T, data string) {
		u, c, ok := parseRegenerate(data)
		if ok && (regenerateData(u, c) != data || u <= 0 || c == 0) {
			t.Fatalf("parseRegenerate(%q) = %d, %d: not the form regenerateData writes", data, u, c)
		}
	})
}

// 🔄 is under the answer to a person's question: not under one that asks
// to confirm an action, nor one after a confirmation; a stopped answer
// keeps it. An older answer loses only its 🔄.
func TestAnswerButtons(t *testing.T) {
	b := &Bot{}
	asked := talk{id: 987654321987, place: ryo.Place{ChatID: -1001234567890, Thread: 7}}
	afterYes := asked
	afterYes.prepare = func(context.Context, *stages.Turn, func(ryo.Step)) error { return nil }
	for _, tt := range []struct {
		name  string
		t     talk
		about answerAbout
		want  int
	}{
		{"an answer", asked, answerAbout{}, 1},
		{"a stopped answer", asked, answerAbout{Stopped: true}, 1},
		{"a held answer", asked, answerAbout{Held: true}, 0},
		{"an answer after a confirmation", afterYes, answerAbout{}, 0},
	} {
		got := b.answerButtons(tt.t, tt.about)
		if n := len(slices.DeleteFunc(slices.Clone(got), func(b stages.Button) bool { return b.Text != "🔄" })); n != tt.want {
			t.Errorf("%s: buttons %v", tt.name, got)
		}
	}
}

func TestWithoutRegenerate(t *testing.T) {
	meta := withButtons(json.RawMessage(`{"model":"m"}`), 512_378, []stages.Button{
		{Text: "🔄", Data: regenerateData(987654321987, -1001234567890)}, {Text: "🔍", Data: "i1:987654321987:-1001234567890"}})
	var about answerAbout
	if err := json.Unmarshal(meta, &about); err != nil || about.ButtonsOn != 512_378 {
		t.Fatalf("metadata %s: %v", meta, err)
	}
	kept, had := withoutRegenerate(about.Buttons)
	if !had || len(kept) != 1 || kept[0].Text != "🔍" {
		t.Fatalf("kept %v, had %v; want 🔍 alone", kept, had)
	}
	if _, had := withoutRegenerate(nil); had {
		t.Fatal("an answer without buttons had 🔄")
	}
}
