package main

import (
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
)

// A yes pressed the moment the buttons appear — before the turn that asked
// has been marked done — still goes on with the conversation in order: the
// model is shown the question, its own answer, then the tool's result.
func TestYesPressedAtOnceKeepsTheConversationInOrder(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("drafts")}, ollamatest.Reply{Content: envelope("The drafts are gone.")})
	h.start()
	// While a prompt with buttons waits, storing a message takes a second:
	// long enough for the press to come first.
	memorytest.Exec(t, h.env["DATABASE_URL"], `create function slow_store() returns trigger language plpgsql as $$
		begin
			if exists (select 1 from actions where state = 'pending' and prompt_message_id is not null) then
				perform pg_sleep(1);
			end if;
			return null;
		end $$;
		create trigger slow_store before insert on messages for each statement execute function slow_store()`)
	h.tg.SendText(dm, alice, "delete my drafts note")
	p := h.prompt(dm)
	h.press(dm, alice, p, "✅")
	h.answer(dm, p.ID, "The drafts are gone.")
	if got := notes.runs(); len(got) != 1 {
		t.Fatalf("deleted %v; want the drafts once", got)
	}
	shown := h.llm.Requests()[1].Messages
	held, result := -1, -1
	for i, m := range shown {
		switch {
		case strings.Contains(m.Content, "once you confirm"):
			held = i
		case strings.HasPrefix(m.Content, "__tool_result__ delete_note "):
			result = i
		}
	}
	if held < 0 || result != len(shown)-1 || held > result {
		t.Fatalf("the model was shown its held answer at %d and the tool's result at %d of %d messages; want the answer first, the result last",
			held, result, len(shown))
	}
}
