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
