package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
)

// TestWebhookMode starts ryo with a webhook: Telegram posts updates to it
// with the secret, and they are answered; a post without the secret is
// refused, a replayed update is answered once; restarted without the
// webhook, ryo removes it and polls.
func TestWebhookMode(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_WEBHOOK_URL"] = "https://bot.example.com/telegram/hook"
	h.start()
	h.waitFor("setWebhook", func() bool { return len(h.tg.Calls("setWebhook")) == 1 })
	hookURL, secret := h.tg.Webhook()
	if hookURL != "https://bot.example.com/telegram/hook" || len(secret) < 32 {
		t.Fatalf("webhook = %q with a secret of %d characters; want the URL and a generated secret", hookURL, len(secret))
	}
	set := h.tg.Calls("setWebhook")[0].Params
	if set["allowed_updates"] != `["message","edited_message","callback_query","my_chat_member"]` || set["max_connections"] != "40" {
		t.Errorf("setWebhook = %v; want polling's allowed updates and 40 connections", set)
	}
	if n := len(h.tg.Calls("getUpdates")) + len(h.tg.Calls("deleteWebhook")); n != 0 {
		t.Errorf("%d getUpdates/deleteWebhook calls in webhook mode; want none", n)
	}
	if strings.Contains(h.logs.String(), secret) {
		t.Error("the webhook secret was logged")
	}
	base := "http://" + h.main.HTTPAddr.String()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// A stranger who found the URL posts an update without the secret.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/telegram/hook",
		strings.NewReader(`{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":7123456789,"type":"private"},"text":"/start"}}`))
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", "guessed")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a post with a wrong secret = %v, %v; want 401", resp, err)
	}

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello Alice.")}, ollamatest.Reply{Content: envelope("Second.")})
	q := h.tg.SendText(dm, alice, "hi")
	if n, err := h.tg.DeliverWebhook(ctx, base); n != 1 || err != nil {
		t.Fatalf("delivered %d, %v; want the message taken", n, err)
	}
	h.answer(dm, q.ID, "Hello Alice.")
	// Telegram sends the same update again, as after a lost answer.
	h.tg.PushUpdate(map[string]any{"update_id": h.tg.ConfirmedUpdateID(), "message": map[string]any{
		"message_id": q.ID, "date": time.Now().Unix(), "chat": map[string]any{"id": dm.ID, "type": "private", "first_name": "Alice"},
		"from": map[string]any{"id": alice.ID, "is_bot": false, "first_name": "Alice"}, "text": "hi"}})
	if n, err := h.tg.DeliverWebhook(ctx, base); n != 1 || err != nil {
		t.Fatalf("replay delivered %d, %v; want it answered 200", n, err)
	}
	q2 := h.tg.SendText(dm, alice, "again")
	if _, err := h.tg.DeliverWebhook(ctx, base); err != nil {
		t.Fatal(err)
	}
	h.answer(dm, q2.ID, "Second.")
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ReplyTo == q.ID && strings.Contains(m.Text, "Second.") {
			t.Fatalf("the replayed update was answered again: %q", m.Text)
		}
	}

	h.stopMain()
	delete(h.env, "RYO_WEBHOOK_URL")
	h.start()
	h.waitFor("deleteWebhook and a poll", func() bool {
		return len(h.tg.Calls("deleteWebhook")) == 1 && len(h.tg.Calls("getUpdates")) > 0
	})
	if u, _ := h.tg.Webhook(); u != "" {
		t.Fatalf("webhook %q still set after a start without RYO_WEBHOOK_URL", u)
	}
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Polled.")})
	q3 := h.tg.SendText(dm, alice, "polled?")
	h.answer(dm, q3.ID, "Polled.")
}

// TestHTTPSlowBodyIsCutOff drips a chunked body that never ends to
// /metrics and to a path nobody serves, as a stranger holding connections
// open would: the server must cut each off rather than wait forever.
func TestHTTPSlowBodyIsCutOff(t *testing.T) {
	m := &Main{Config: Config{HTTPAddr: "127.0.0.1:0"}, HTTPReadTimeout: 200 * time.Millisecond}
	stop, err := m.serveHTTP(context.Background(), nil, http.NotFoundHandler(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, line := range []string{"GET /metrics", "POST /nothing/here"} {
		c, err := net.Dial("tcp", m.HTTPAddr.String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", line)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.ReadAll(c) // the body never ends: only the server can end this
		c.Close()
		if err != nil {
			t.Errorf("%s: the server still waits for a body that never ends: %v", line, err)
		}
	}
}

// TestWebhookSameUpdateAtOnce posts one update 50 times at once, as a
// Telegram retrying over many connections might: it is answered once.
func TestWebhookSameUpdateAtOnce(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_WEBHOOK_URL"] = "https://bot.example.com/telegram/hook"
	h.start()
	h.waitFor("setWebhook", func() bool { return len(h.tg.Calls("setWebhook")) == 1 })
	_, secret := h.tg.Webhook()
	base := "http://" + h.main.HTTPAddr.String()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Warm.")}, ollamatest.Reply{Content: envelope("Once.")},
		ollamatest.Reply{Content: envelope("Next.")})
	w := h.tg.SendText(dm, alice, "warm up")
	if _, err := h.tg.DeliverWebhook(ctx, base); err != nil {
		t.Fatal(err)
	}
	h.answer(dm, w.ID, "Warm.")
	q := h.tg.SendText(dm, alice, "hi") // queued with the next update_id, posted below first
	body := `{"update_id":` + fmt.Sprint(h.tg.ConfirmedUpdateID()+1) + `,"message":{"message_id":` + fmt.Sprint(q.ID) +
		`,"date":` + fmt.Sprint(time.Now().Unix()) + `,"chat":{"id":` + fmt.Sprint(dm.ID) + `,"type":"private","first_name":"Alice"},"from":{"id":` +
		fmt.Sprint(alice.ID) + `,"is_bot":false,"first_name":"Alice"},"text":"hi"}}`
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/telegram/hook", strings.NewReader(body))
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				codes[i] = resp.StatusCode
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("post %d: status %d; want 200", i, c)
		}
	}
	h.answer(dm, q.ID, "Once.")
	n := h.tg.SendText(dm, alice, "next")
	if _, err := h.tg.DeliverWebhook(ctx, base); err != nil { // Telegram's own copy, then the next
		t.Fatal(err)
	}
	h.answer(dm, n.ID, "Next.")
	answers := 0
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.ReplyTo == q.ID {
			answers++
		}
	}
	if answers != 1 {
		t.Fatalf("the update posted 51 times was answered %d times; want once", answers)
	}
}
