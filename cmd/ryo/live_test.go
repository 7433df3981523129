package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/ollama/livetest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// liveHarness is the harness with a real Ollama serving the tiny model in
// place of the scripted one.
func liveHarness(tb testing.TB) *harness {
	srv := livetest.Start(tb)
	m := livetest.DefaultTinyModel()
	m.Favour = "n" // envelopes without a command
	srv.CreateTinyModel(tb, "tiny", m)
	h := newHarness(tb)
	h.env["OLLAMA_HOST"] = srv.URL
	h.env["RYO_MODEL"] = "tiny"
	h.env["RYO_LOG_LEVEL"] = "warn"
	// However slow a loaded machine makes the model, the answer replaces
	// the status message: the tests check one answer, not the timing.
	h.env["RYO_NOTIFY_AFTER"] = "10m"
	return h
}

// One whole turn: fake Telegram, ryo, a real Ollama, the answer in the chat.
func TestLiveTurn(t *testing.T) {
	h := liveHarness(t)
	h.start()
	q := h.tg.SendText(dm, alice, "hello, real model")
	msgs := h.answer(dm, q.ID, "ok")
	if len(msgs) != 1 || msgs[0].Text != "ok" {
		t.Fatalf("bot messages = %+v; want the tiny model's ok as the one answer", msgs)
	}
	h.waitFor("the answer stored", func() bool { return len(answers(t, h)) == 1 })
	if u := answers(t, h)[0]; u.Usage.ReplyTokens == 0 || u.Usage.ModelTotalMS <= 0 {
		t.Fatalf("stored usage = %+v; want the server's figures", u)
	}
}

// storedUsage is what an answer's metadata says it cost.
type storedUsage struct {
	DurationMS float64 `json:"duration_ms"`
	Usage      struct {
		ReplyTokens  int     `json:"reply_tokens"`
		ModelTotalMS float64 `json:"model_total_ms"`
	} `json:"usage"`
}

// answers reads the stored figures of every answer in a private chat
// (Alice's when none is named).
func answers(tb testing.TB, h *harness, chat ...telegramtest.Chat) []storedUsage {
	tb.Helper()
	place := ryo.Place{ChatID: dm.ID}
	if len(chat) > 0 {
		place.ChatID = chat[0].ID
	}
	msgs, err := h.db().History(bg(tb), place, 1_000_000)
	if err != nil {
		tb.Fatal(err)
	}
	var out []storedUsage
	for _, m := range msgs {
		if m.Kind != ryo.KindAssistant {
			continue
		}
		var u storedUsage
		if err := json.Unmarshal(m.Metadata, &u); err != nil {
			tb.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// BenchmarkLiveTurn measures whole turns against a real Ollama and the tiny
// model, from the user's message to the answer in the chat, and reports
// ryo's own share apart from the time Ollama says the model took. Each
// question comes from another person: questions one after the other in one
// chat would also measure Telegram's limit of about a message a second per
// chat, which ryo keeps to on purpose.
func BenchmarkLiveTurn(b *testing.B) {
	h := liveHarness(b)
	h.start()
	q := h.tg.SendText(dm, alice, "warm up")
	h.answer(dm, q.ID, "ok")
	var wall time.Duration
	chats := make([]telegramtest.Chat, b.N)
	b.ResetTimer()
	for i := range b.N {
		person := telegramtest.NewUser(fmt.Sprintf("Person %d", i), "")
		chats[i] = telegramtest.PrivateChat(person)
		start := time.Now()
		q := h.tg.SendText(chats[i], person, fmt.Sprintf("question %d", i))
		h.answer(chats[i], q.ID, "ok")
		wall += time.Since(start)
	}
	b.StopTimer()
	var model float64
	for _, chat := range chats {
		h.waitFor("the turn stored", func() bool { return len(answers(b, h, chat)) == 1 })
		model += answers(b, h, chat)[0].Usage.ModelTotalMS
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall.Microseconds())/1000/n, "ms/turn")
	b.ReportMetric(model/n, "model-ms/turn")
	b.ReportMetric(float64(wall.Microseconds())/1000/n-model/n, "ryo-ms/turn")
	b.ReportMetric(0, "ns/op")
}
