package memory_test

import (
	"testing"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A chat's model and the default are kept apart: each chat has its own,
// by its 64-bit id, and "" goes back to the default (the default back to
// the environment's).
func TestModelChoice(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	group, other, private := int64(-1001234567890), int64(-1009876543210), int64(7_123_456_789)
	admin := int64(8_589_934_593)
	check := func(chat int64, want memory.ModelChoice) {
		t.Helper()
		if got, err := db.ModelChoice(c, chat); err != nil || got != want {
			t.Fatalf("ModelChoice(%d) = %+v, %v; want %+v", chat, got, err, want)
		}
		if got, err := db.TurnSettings(c, chat); err != nil || got.ModelChoice() != want {
			t.Fatalf("TurnSettings(%d) = %+v, %v; want the models %+v", chat, got, err, want)
		}
	}
	check(group, memory.ModelChoice{})
	if err := db.SetChatModel(c, group, admin, "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetChatModel(c, private, admin, "gemma3:4b"); err != nil {
		t.Fatal(err)
	}
	check(group, memory.ModelChoice{Chat: "qwen3:8b"})
	check(other, memory.ModelChoice{})
	check(private, memory.ModelChoice{Chat: "gemma3:4b"})
	if err := db.SetDefaultModel(c, admin, "llama3.1:8b"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetChatModel(c, group, admin, "mistral:7b"); err != nil {
		t.Fatal(err)
	}
	check(group, memory.ModelChoice{Chat: "mistral:7b", Default: "llama3.1:8b"})
	check(other, memory.ModelChoice{Default: "llama3.1:8b"})
	if err := db.SetChatModel(c, group, admin, ""); err != nil {
		t.Fatal(err)
	}
	check(group, memory.ModelChoice{Default: "llama3.1:8b"})
	if err := db.SetDefaultModel(c, admin, ""); err != nil {
		t.Fatal(err)
	}
	check(group, memory.ModelChoice{})
	check(private, memory.ModelChoice{Chat: "gemma3:4b"})
}

// What /settings sets is kept per chat, by its 64-bit id, each field on
// its own: setting one leaves the others, and the model, as they were;
// "" (nil for the temperature) goes back to the default.
func TestChatSettings(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	group, other, private := int64(-1001234567890), int64(-1009876543210), int64(7_123_456_789)
	admin := int64(8_589_934_593)
	check := func(chat int64, want memory.ChatSettings) {
		t.Helper()
		got, err := db.ChatSettings(c, chat)
		if err != nil {
			t.Fatal(err)
		}
		turn, err := db.TurnSettings(c, chat)
		if err != nil {
			t.Fatal(err)
		}
		if turn.Temperature != nil && want.Temperature != nil && *turn.Temperature == *want.Temperature {
			turn.Temperature = nil
		}
		if got.Temperature != nil && want.Temperature != nil && *got.Temperature == *want.Temperature {
			got.Temperature, want.Temperature = nil, nil
		}
		if got != want || turn.ChatSettings != want {
			t.Fatalf("ChatSettings(%d) = %+v, TurnSettings %+v; want %+v", chat, got, turn.ChatSettings, want)
		}
	}
	warm := 0.3
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.SetChatModel(c, group, admin, "qwen3:8b"))
	must(db.SetChatPersona(c, group, admin, "A pirate. Speak like one."))
	must(db.SetChatTemperature(c, group, admin, &warm))
	must(db.SetChatLanguage(c, group, admin, "ru"))
	must(db.SetChatAnswerMode(c, group, admin, "every"))
	must(db.SetChatLanguage(c, private, private, "en"))
	check(group, memory.ChatSettings{Model: "qwen3:8b", Persona: "A pirate. Speak like one.", Temperature: &warm, Language: "ru", AnswerMode: "every"})
	check(private, memory.ChatSettings{Language: "en"})
	check(other, memory.ChatSettings{})
	must(db.SetChatPersona(c, group, admin, ""))
	must(db.SetChatTemperature(c, group, admin, nil))
	check(group, memory.ChatSettings{Model: "qwen3:8b", Language: "ru", AnswerMode: "every"})
	must(db.SetChatLanguage(c, group, admin, ""))
	must(db.SetChatAnswerMode(c, group, admin, ""))
	check(group, memory.ChatSettings{Model: "qwen3:8b"})
	hot := 2.5
	if err := db.SetChatTemperature(c, group, admin, &hot); err == nil {
		t.Fatal("a temperature of 2.5 was kept")
	}
	if err := db.SetChatAnswerMode(c, group, admin, "sometimes"); err == nil {
		t.Fatal("an answer mode of sometimes was kept")
	}
}

// A group's settings are carried to the supergroup it became, whole and
// once: a supergroup that already has its own keeps them, and carrying
// from a chat with none adds nothing.
func TestCarryChatSettings(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	group, super, other, fresh := int64(-4_012_345_678), int64(-1001987654321), int64(-1009876543210), int64(-1005555555555)
	admin := int64(7_123_456_789)
	warm := 0.7
	for _, set := range []func() error{
		func() error { return db.SetChatPersona(c, group, admin, "A cheerful quizmaster.") },
		func() error { return db.SetChatTemperature(c, group, admin, &warm) },
		func() error { return db.SetChatAnswerMode(c, group, admin, "every") },
		func() error { return db.SetChatModel(c, group, admin, "qwen3:8b") },
		func() error { return db.SetChatPersona(c, other, admin, "Its own.") },
	} {
		if err := set(); err != nil {
			t.Fatal(err)
		}
	}
	for _, to := range []int64{super, super, other} {
		if err := db.CarryChatSettings(c, group, to); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CarryChatSettings(c, -4_099_999_999, fresh); err != nil {
		t.Fatal(err)
	}
	got, err := db.ChatSettings(c, super)
	if err != nil || got.Persona != "A cheerful quizmaster." || got.Temperature == nil || *got.Temperature != 0.7 || got.AnswerMode != "every" || got.Model != "qwen3:8b" {
		t.Fatalf("the supergroup's settings are %+v, %v", got, err)
	}
	if got, err := db.ChatSettings(c, other); err != nil || got.Persona != "Its own." || got.AnswerMode != "" {
		t.Fatalf("a chat with its own settings has %+v, %v", got, err)
	}
	if got, err := db.ChatSettings(c, fresh); err != nil || got != (memory.ChatSettings{}) {
		t.Fatalf("carrying nothing gave %+v, %v", got, err)
	}
}
