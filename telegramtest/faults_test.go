package telegramtest_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo/telegramtest"
)

func TestFailNextTooManyRequests(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	s.FailNext("sendMessage", 2, telegramtest.TooManyRequests(7))

	for i := range 2 {
		_, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "x"})
		var tmr *bot.TooManyRequestsError
		if !errors.As(err, &tmr) || tmr.RetryAfter != 7 || !strings.Contains(tmr.Message, "Too Many Requests: retry after 7") {
			t.Fatalf("call %d: err = %v, want 429 retry_after 7", i, err)
		}
	}
	if _, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "x"}); err != nil {
		t.Fatalf("third call: %v", err)
	}
	calls := s.Calls("sendMessage")
	if len(calls) != 3 || calls[0].Err == nil || calls[0].Err.RetryAfter != 7 || calls[2].Err != nil {
		t.Errorf("calls = %+v", calls)
	}
	if n := len(s.BotMessages(aliceChat().ID)); n != 1 {
		t.Errorf("BotMessages = %d, want only the successful one", n)
	}
}

func TestFailNextCountsPerMethod(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	s.FailNext("editMessageText", 1, telegramtest.APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"})
	sent, err := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "x"})
	if err != nil {
		t.Fatalf("sendMessage was failed by an editMessageText fault: %v", err)
	}
	_, err = b.EditMessageText(t.Context(), &bot.EditMessageTextParams{ChatID: aliceChat().ID, MessageID: sent.ID, Text: "y"})
	if !errors.Is(err, bot.ErrorForbidden) {
		t.Errorf("err = %v, want forbidden", err)
	}
}

func TestSetDown(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SetDown(true)
	_, err := b.GetMe(t.Context())
	if err == nil || !strings.Contains(err.Error(), "error decode response body") {
		t.Errorf("err = %v, want a decode error", err)
	}
	resp, err := http.Post(s.URL()+"/bot"+testToken+"/getMe", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || strings.HasPrefix(string(body), "{") {
		t.Errorf("status %d body %q", resp.StatusCode, body)
	}
	s.SetDown(false)
	if _, err := b.GetMe(t.Context()); err != nil {
		t.Errorf("after SetDown(false): %v", err)
	}
	if calls := s.Calls("getMe"); len(calls) != 3 || calls[0].Err == nil || calls[0].Err.Code != 502 {
		t.Errorf("calls = %+v", calls)
	}
}

func TestWrongTokenAndUnknownMethod(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	r := post(ctx, t, s.URL()+"/bot999:wrong/getMe", "application/json", nil)
	if r.status != 401 || r.ErrorCode != 401 || r.Description != "Unauthorized" {
		t.Errorf("wrong token: %+v", r)
	}
	r = postJSON(ctx, t, s, "sendPigeon", map[string]any{})
	if r.status != 404 || r.ErrorCode != 404 || r.Description != "Not Found" {
		t.Errorf("unknown method: %+v", r)
	}
	if calls := s.Calls(""); len(calls) != 2 || calls[1].Method != "sendPigeon" || calls[1].Err.Code != 404 {
		t.Errorf("calls = %+v", calls)
	}
}

func TestObserveSeesEveryAnsweredCall(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	s := telegramtest.NewServer(telegramtest.Options{Token: testToken, Observe: func(c telegramtest.Call) {
		mu.Lock()
		defer mu.Unlock()
		status := "ok"
		if c.Err != nil {
			status = c.Err.Description
		}
		seen = append(seen, c.Method+" "+c.Params["text"]+" "+status)
	}})
	defer s.Close()
	s.SendText(aliceChat(), alice(), "hi")
	postForm(timeout(t), t, s, "sendMessage", url.Values{"chat_id": {aliceID()}, "text": {"hello"}})
	postForm(timeout(t), t, s, "sendMessage", url.Values{"chat_id": {aliceID()}, "text": {" "}})
	mu.Lock()
	defer mu.Unlock()
	want := []string{"sendMessage hello ok", "sendMessage   Bad Request: message text is empty"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("observed %q; want %q", seen, want)
	}
}
