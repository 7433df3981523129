package prompts

import (
	"fmt"
	"testing"
)

// A Set serving more chats' system prompts than it keeps — one persona
// more — keeps all but one of those it kept: clearing them all when full
// made every turn render its prompt anew once the chats in use outnumber
// maxKept, as each newcomer cleared the prompts the next turns needed.
func TestSystemKeptPastTheLimitKeepsTheOthers(t *testing.T) {
	set, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxKept + 1 {
		if _, err := set.System(System{BotName: "Ryo", ChatType: "supergroup", Persona: fmt.Sprintf("Persona %d.", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(set.systems.byData); n != maxKept {
		t.Fatalf("%d prompts kept after %d chats' prompts; want %d, one let go for the newest", n, maxKept+1, maxKept)
	}
}
