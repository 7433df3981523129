package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// call is the model asking for tool with slots.
func call(tool, slots string) string {
	return `{"reply":"One moment.","command":{"intent":"` + tool + `","slots":` + slots +
		`,"confidence":0.9,"requiresConfirmation":false,"followUpQuestion":null},"tags":["memory"],"followUpQuestion":null}`
}

// newestPrompt is the last message the model was sent in request i.
func (h *harness) newestPrompt(i int) string {
	h.t.Helper()
	reqs := h.llm.Requests()
	if len(reqs) <= i {
		h.t.Fatalf("the model had %d requests; want request %d", len(reqs), i)
	}
	msgs := reqs[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if msgs[j].Role == "user" && !strings.HasPrefix(msgs[j].Content, "__tool_result__") {
			return msgs[j].Content
		}
	}
	return ""
}

// A person asks the bot to remember something; later it is recalled with
// their question, and the turn carries the memory tags.
func TestRememberThenRecall(t *testing.T) {
	h := newHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: call("remember", `{"content":"Alice's dog is called Rex","tags":["pets"]}`)},
		ollamatest.Reply{Content: envelope("I'll remember that your dog is called Rex.")},
		ollamatest.Reply{Content: envelope("Your dog is called Rex.")})
	h.start()
	q := h.tg.SendText(dm, alice, "remember that my dog is called Rex")
	h.answer(dm, q.ID, "I'll remember")
	h.waitFor("the first turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	mems, total, err := h.db().Memories(bg(t), ryo.PersonShelf(alice.ID), 0, 10)
	if err != nil || total != 1 || mems[0].Content != "Alice's dog is called Rex" || mems[0].Source == 0 || mems[0].Tags[0] != "pets" {
		t.Fatalf("stored memories = %+v (%d), %v", mems, total, err)
	}
	q = h.tg.SendText(dm, alice, "what's my dog's name again?")
	h.answer(dm, q.ID, "Your dog is called Rex.")
	if shown := h.newestPrompt(2); !strings.Contains(shown, fmt.Sprintf("memory #%d: Alice's dog is called Rex", mems[0].ID)) ||
		!strings.HasSuffix(shown, "what's my dog's name again?") {
		t.Fatalf("the model was shown %q; want the memory with the question", shown)
	}
	h.waitFor("the second turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	counts, err := h.db().TagCounts(bg(t), 20)
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	for _, c := range counts {
		tags[c.Tag] = c.Count
	}
	if tags["memory:remember"] != 1 || tags["memory:recall"] != 1 || tags["tool:remember"] != 1 {
		t.Fatalf("tags = %v; want memory:remember and memory:recall once each", tags)
	}
}

// Nobody reaches another person's memories: not by the prompt, not by
// recall, not by forget; a group's memories stay in the group.
func TestMemoriesStayWithTheirOwner(t *testing.T) {
	h := newHarness(t)
	h.start()
	mine, err := h.db().Remember(bg(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: alice.ID, Chat: dm.ID,
		Content: "Alice's bank PIN is 4242", AddedBy: alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.db().Remember(bg(t), ryo.Memory{Scope: ryo.ScopeGroup, Owner: alice.ID, Chat: team.ID,
		Content: "The team's wifi PIN is 9999", AddedBy: alice.ID}); err != nil {
		t.Fatal(err)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: call("recall", `{"query":"bank PIN"}`)},
		ollamatest.Reply{Content: envelope("I don't know any PIN of yours.")},
		ollamatest.Reply{Content: call("forget", fmt.Sprintf(`{"memory_id":%d}`, mine.ID))})
	q := h.tg.SendText(bobDM, bob, "what is the bank PIN?")
	h.answer(bobDM, q.ID, "I don't know any PIN")
	if shown := h.newestPrompt(0); strings.Contains(shown, "4242") || strings.Contains(shown, "9999") {
		t.Fatalf("Bob's prompt shows someone else's memory: %q", shown)
	}
	if result := lastToolResult(t, h, 1); !strings.Contains(result, `"memories":[]`) {
		t.Fatalf("Bob's recall returned %q", result)
	}
	q = h.tg.SendText(bobDM, bob, "forget Alice's PIN")
	p := h.prompt(bobDM)
	if !strings.Contains(p.Text, fmt.Sprintf("There is no memory #%d here", mine.ID)) || strings.Contains(p.Text, "4242") {
		t.Fatalf("Bob's forget prompt = %q", p.Text)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("There was nothing to forget.")})
	h.pressAnswer(h.press(bobDM, bob, p, "✅"))
	h.answer(bobDM, p.ID, "nothing to forget")
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(alice.ID), mine.ID); !ok {
		t.Fatal("Bob's forget removed Alice's memory")
	}
	// In a private chat Alice does not see the group's memories either.
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Your PIN is 4242.")})
	q = h.tg.SendText(dm, alice, "what's the PIN?")
	h.answer(dm, q.ID, "4242")
	if shown := h.newestPrompt(len(h.llm.Requests()) - 1); !strings.Contains(shown, "4242") || strings.Contains(shown, "9999") {
		t.Fatalf("Alice's private prompt = %q; want her memory only", shown)
	}
}

// Forgetting needs the person's yes, and the prompt shows the memory
// itself, not only its number.
func TestForgetShowsTheMemoryAndWaitsForTheYes(t *testing.T) {
	h := newHarness(t)
	h.start()
	m, err := h.db().Remember(bg(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: alice.ID, Chat: dm.ID,
		Content: "Alice is afraid of spiders", AddedBy: alice.ID})
	if err != nil {
		t.Fatal(err)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: call("forget", fmt.Sprintf(`{"memory_id":%d}`, m.ID))},
		ollamatest.Reply{Content: envelope("Forgotten.")})
	h.tg.SendText(dm, alice, "forget the thing about spiders")
	p := h.prompt(dm)
	if !strings.Contains(p.Text, fmt.Sprintf("Forget memory #%d: “Alice is afraid of spiders”", m.ID)) {
		t.Fatalf("prompt = %q; want the memory shown", p.Text)
	}
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(alice.ID), m.ID); !ok {
		t.Fatal("forgotten before the yes")
	}
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.answer(dm, p.ID, "Forgotten.")
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(alice.ID), m.ID); ok {
		t.Fatal("still remembered after the yes")
	}
}

// lastToolResult is the tool result the model was shown last in request i.
func lastToolResult(t *testing.T, h *harness, i int) string {
	t.Helper()
	msgs := h.llm.Requests()[i].Messages
	for j := len(msgs) - 1; j >= 0; j-- {
		if strings.HasPrefix(msgs[j].Content, "__tool_result__") {
			var body map[string]json.RawMessage
			_, rest, _ := strings.Cut(strings.TrimPrefix(msgs[j].Content, "__tool_result__ "), " ")
			json.Unmarshal([]byte(rest), &body)
			return string(body["result"])
		}
	}
	t.Fatalf("request %d has no tool result", i)
	return ""
}

// With an embedding model, memories are stored with their vectors and
// recalled by them too: a question too short for word matching ("go?")
// still brings up the memory it is about. Without one, words alone.
func TestRecallByMeaningWithAnEmbeddingModel(t *testing.T) {
	for _, embed := range []bool{true, false} {
		t.Run(fmt.Sprintf("embed=%v", embed), func(t *testing.T) {
			h := newHarness(t)
			if embed {
				h.env["RYO_EMBED_MODEL"] = "llama3.2" // the fake serves /api/embed for its model
			}
			h.llm.Enqueue(ollamatest.Reply{Content: call("remember", `{"content":"Ok Go is my favourite band"}`)},
				ollamatest.Reply{Content: envelope("Noted.")}, ollamatest.Reply{Content: envelope("Ok Go!")})
			h.start()
			q := h.tg.SendText(dm, alice, "remember: Ok Go is my favourite band")
			h.answer(dm, q.ID, "Noted.")
			h.waitFor("the first turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
			q = h.tg.SendText(dm, alice, "go?")
			h.answer(dm, q.ID, "Ok Go!")
			shown := strings.Contains(h.newestPrompt(2), "Ok Go is my favourite band")
			if shown != embed {
				t.Fatalf("memory shown with the question: %v; want %v (prompt %q)", shown, embed, h.newestPrompt(2))
			}
		})
	}
}

// An embedding model that is missing loses nothing: the memory is stored
// and recalled by its words, and the log says why.
func TestMissingEmbeddingModelFallsBackToWords(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_EMBED_MODEL"] = "not-pulled"
	h.llm.Enqueue(ollamatest.Reply{Content: call("remember", `{"content":"The spare key is under the blue pot"}`)},
		ollamatest.Reply{Content: envelope("Noted.")}, ollamatest.Reply{Content: envelope("Under the blue pot.")})
	h.start()
	q := h.tg.SendText(dm, alice, "remember the spare key is under the blue pot")
	h.answer(dm, q.ID, "Noted.")
	h.waitFor("the first turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	q = h.tg.SendText(dm, alice, "where is the spare key?")
	h.answer(dm, q.ID, "Under the blue pot.")
	if !strings.Contains(h.newestPrompt(2), "The spare key is under the blue pot") {
		t.Fatalf("prompt = %q; want the memory recalled by its words", h.newestPrompt(2))
	}
	if !strings.Contains(h.logs.String(), "could not embed a memory or a query; using its words alone") {
		t.Fatal("the log does not say embedding failed")
	}
}
