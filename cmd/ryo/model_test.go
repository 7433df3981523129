package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// modelHarness has Alice as the bot's admin, and the model server holds,
// beside llama3.2 (RYO_MODEL), a model trained for tools, one that is
// not, and an embedding model. Every turn is answered "hello".
func modelHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Install("qwen3:8b", ollamatest.Model{Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M", Size: 5225388164,
		Capabilities: []string{"completion", "tools", "thinking"}})
	h.llm.Install("tinyllama:1.1b", ollamatest.Model{Family: "llama", ParameterSize: "1B", Quantization: "Q4_0", Size: 637700138,
		Capabilities: []string{"completion"}})
	h.llm.Install("nomic-embed-text", ollamatest.Model{Family: "nomic-bert", ParameterSize: "137M", Quantization: "F16", Size: 274302450,
		Capabilities: []string{"embedding"}})
	h.llm.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: envelope("hello")} })
	return h
}

// askedModels are the models the chat requests to the fake Ollama named,
// in order.
func (h *harness) askedModels() []string {
	var out []string
	for _, r := range h.llm.Requests() {
		out = append(out, r.Model)
	}
	return out
}

// An admin switches a group to another model with the buttons of /model,
// and the group's next turn asks it; a member's press and a press forged
// into another chat choose nothing.
func TestAdminSwitchesGroupModelWithButtons(t *testing.T) {
	h := modelHarness(t)
	h.start()
	q := h.tg.SendText(team, alice, "/model")
	list := h.reply(team, q.ID, "Answering here: llama3.2 — the default (RYO_MODEL)")
	for _, want := range []string{"qwen3:8b — 5.2 GB · qwen3 · 8.2B · 🛠 tools · 💭 thinking", "nomic-embed-text:latest — 0.3 GB · nomic-bert · 137M · 🔢 embedding",
		"llama3.2:latest — 2.0 GB · llama · 3.2B ← answers here ⭐ default"} {
		if !strings.Contains(list.Text, want) {
			t.Errorf("/model lacks %q:\n%s", want, list.Text)
		}
	}
	for _, row := range list.Buttons() {
		for _, b := range row {
			if strings.HasPrefix(b.Text, "nomic") {
				t.Errorf("the embedding model has a button: %+v", b)
			}
			if len(b.Data) > 64 {
				t.Errorf("button data %q is longer than Telegram takes", b.Data)
			}
		}
	}
	if a := h.pressAnswer(h.press(team, bob, list, "qwen3:8b")); !strings.Contains(a.Text, "Only an admin") || !a.ShowAlert {
		t.Fatalf("a member's press was answered %+v", a)
	}
	h.pressAnswer(h.press(team, alice, list, "qwen3:8b"))
	h.waitFor("the model's card", func() bool { return strings.Contains(h.message(team, list.ID).Text, "🤖 qwen3:8b") })
	card := h.message(team, list.ID)
	if a := h.pressAnswer(h.press(team, bob, card, "✅ Answer here")); !strings.Contains(a.Text, "Only an admin") {
		t.Fatalf("a member's press on the card was answered %+v", a)
	}
	here := ""
	for _, row := range card.Buttons() {
		for _, b := range row {
			if strings.HasPrefix(b.Text, "✅") {
				here = b.Data
			}
		}
	}
	q = h.tg.SendText(dm, alice, "/start")
	h.answer(dm, q.ID, "")
	elsewhere := h.tg.BotMessages(dm.ID)[0]
	if a := h.pressAnswer(h.tg.PressForged(dm.ID, alice, elsewhere.ID, here)); a.Text != "This button no longer works." {
		t.Fatalf("a press forged into another chat was answered %+v", a)
	}
	if a := h.pressAnswer(h.press(team, alice, card, "✅ Answer here")); !strings.Contains(a.Text, "qwen3:8b answers here") {
		t.Fatalf("the admin's press was answered %+v", a)
	}
	h.waitFor("the list to show the choice", func() bool {
		return strings.Contains(h.message(team, list.ID).Text, "Answering here: qwen3:8b — chosen for this chat")
	})
	for chat, want := range map[int64]memory.ModelChoice{team.ID: {Chat: "qwen3:8b"}, dm.ID: {}} {
		if got, err := h.db().ModelChoice(t.Context(), chat); err != nil || got != want {
			t.Errorf("chat %d's choice = %+v, %v; want %+v", chat, got, err, want)
		}
	}
	q = h.tg.SendText(team, bob, "@ryo_test_bot hi")
	h.answer(team, q.ID, "hello")
	if got := h.askedModels(); len(got) != 1 || got[0] != "qwen3:8b" {
		t.Fatalf("the turn after the switch asked %q; want qwen3:8b", got)
	}
	q = h.tg.SendText(dm, alice, "hi")
	h.answer(dm, q.ID, "hello")
	if got := h.askedModels(); got[len(got)-1] != "llama3.2" {
		t.Fatalf("a turn in another chat asked %q; want llama3.2", got)
	}
	// The way back: this chat to the default, by its button.
	if a := h.pressAnswer(h.press(team, alice, h.message(team, list.ID), "↩ This chat")); !strings.Contains(a.Text, "default model answers here again") {
		t.Fatalf("the reset was answered %+v", a)
	}
	if got, err := h.db().ModelChoice(t.Context(), team.ID); err != nil || got != (memory.ModelChoice{}) {
		t.Fatalf("after the reset the choice is %+v, %v", got, err)
	}
}

// A member sees which model answers, and the list, without buttons; they
// cannot choose one as text either.
func TestMemberSeesModelsWithoutButtons(t *testing.T) {
	h := modelHarness(t)
	h.start()
	q := h.tg.SendText(team, bob, "/model")
	list := h.reply(team, q.ID, "Answering here: llama3.2")
	if len(list.Buttons()) != 0 || !strings.Contains(list.Text, "tinyllama:1.1b — 0.6 GB · llama · 1B") {
		t.Fatalf("a member's /model = %q with buttons %+v; want the list without buttons", list.Text, list.Buttons())
	}
	q = h.tg.SendText(team, bob, "/model qwen3:8b")
	h.reply(team, q.ID, "Only an admin of the bot can choose the model")
	if got, err := h.db().ModelChoice(t.Context(), team.ID); err != nil || got != (memory.ModelChoice{}) {
		t.Fatalf("after a member's /model qwen3:8b the choice is %+v, %v", got, err)
	}
}

// An admin chooses as text: a model not trained for tools is chosen with
// a warning, an embedding model or one not installed is not; the default
// set from the chat answers where no chat chose, until it is reset.
func TestAdminChoosesModelAsText(t *testing.T) {
	h := modelHarness(t)
	h.start()
	for _, tc := range []struct{ text, want string }{
		{"/model nomic-embed-text", "is an embedding model"},
		{"/model mistral:7b", "is not installed on the model server"},
		{"/model TinyLlama:1.1b", "not trained for tools"},
		{"/model default qwen3:8b", "qwen3:8b is the default from now on"},
	} {
		q := h.tg.SendText(team, alice, tc.text)
		h.reply(team, q.ID, tc.want)
	}
	q := h.tg.SendText(team, bob, "@ryo_test_bot hi")
	h.answer(team, q.ID, "hello")
	q = h.tg.SendText(bobDM, bob, "hi")
	h.answer(bobDM, q.ID, "hello")
	if got := h.askedModels(); fmt.Sprint(got) != "[tinyllama:1.1b qwen3:8b]" {
		t.Fatalf("asked %q; want the group's own model, then the default in a private chat", got)
	}
	q = h.tg.SendText(team, alice, "/model default reset")
	h.reply(team, q.ID, "The default is RYO_MODEL's again: llama3.2")
	q = h.tg.SendText(bobDM, bob, "and now?")
	h.answer(bobDM, q.ID, "hello")
	if got := h.askedModels(); got[len(got)-1] != "llama3.2" {
		t.Fatalf("after the reset asked %q; want llama3.2", got)
	}
}

// A chosen model removed from the server: the default answers, the log
// says so once over two turns, and /model shows it to the admin.
func TestRemovedModelFallsBackToTheDefault(t *testing.T) {
	h := modelHarness(t)
	h.start()
	q := h.tg.SendText(team, alice, "/model qwen3:8b")
	h.reply(team, q.ID, "qwen3:8b answers here from now on")
	h.llm.Remove("qwen3:8b")
	for _, text := range []string{"@ryo_test_bot hi", "@ryo_test_bot hi again"} {
		q = h.tg.SendText(team, bob, text)
		h.answer(team, q.ID, "hello")
	}
	if got := h.askedModels(); fmt.Sprint(got) != "[qwen3:8b llama3.2 qwen3:8b llama3.2]" {
		t.Fatalf("asked %q; want the chosen model, then the default, at each turn", got)
	}
	if n := strings.Count(h.logs.String(), "the model chosen here is no longer installed"); n != 1 {
		t.Fatalf("the fallback was logged %d times over two turns; want once", n)
	}
	q = h.tg.SendText(team, alice, "/model")
	list := h.reply(team, q.ID, "qwen3:8b was chosen for this chat but is no longer installed")
	if !strings.Contains(list.Text, "Answering here: llama3.2") {
		t.Fatalf("/model after the removal:\n%s", list.Text)
	}
}

// A chat's own model that reads pictures looks at the chat's photos too;
// one that does not leaves them to RYO_VISION_MODEL.
func TestChatModelThatSeesReadsPhotos(t *testing.T) {
	h := visionHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Install("qwen2.5vl:7b", ollamatest.Model{Family: "qwen25vl", ParameterSize: "8.3B", Size: 5969245856,
		Capabilities: []string{"completion", "vision"}})
	h.llm.Install("qwen3:8b", ollamatest.Model{Family: "qwen3", ParameterSize: "8.2B", Capabilities: []string{"completion", "tools"}})
	h.llm.Handle(func(ollamatest.Request) ollamatest.Reply { return ollamatest.Reply{Content: envelope("A red car.")} })
	h.start()
	ask := func(model string) string {
		t.Helper()
		q := h.tg.SendText(dm, alice, "/model "+model)
		h.reply(dm, q.ID, "answers here from now on")
		q = h.tg.SendPhoto(dm, alice, imagetest.Picture(800, 600, "jpeg"), "what is it?")
		h.answer(dm, q.ID, "A red car.")
		got, images, _ := lastImages(t, h.llm)
		if len(images) == 0 {
			t.Fatalf("the model %q was shown no picture", got)
		}
		return got
	}
	if got := ask("qwen2.5vl:7b"); got != "qwen2.5vl:7b" {
		t.Errorf("a chat model that reads pictures: the photo went to %q", got)
	}
	if got := ask("qwen3:8b"); got != "gemma3:4b" {
		t.Errorf("a chat model that does not read pictures: the photo went to %q; want RYO_VISION_MODEL's", got)
	}
}
