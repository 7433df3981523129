package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/telegramtest"
)

func TestOutcome(t *testing.T) {
	dial := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	slow := &url.Error{Op: "Post", URL: "http://x", Err: &net.DNSError{Err: "i/o timeout", IsTimeout: true}}
	tests := []struct {
		err  error
		want string
	}{
		{nil, delivery.OutcomeOK},
		{&tg.TooManyRequestsError{RetryAfter: 7}, delivery.OutcomeTooManyRequests},
		{&tg.MigrateError{MigrateToChatID: -1001234567890}, delivery.OutcomeBadRequest},
		{fmt.Errorf("%w, message is not modified", tg.ErrorBadRequest), delivery.OutcomeBadRequest},
		{fmt.Errorf("%w, bot was blocked by the user", tg.ErrorForbidden), delivery.OutcomeForbidden},
		{fmt.Errorf("%w, Unauthorized", tg.ErrorUnauthorized), delivery.OutcomeUnauthorized},
		{fmt.Errorf("%w, Not Found", tg.ErrorNotFound), delivery.OutcomeNotFound},
		{fmt.Errorf("%w, terminated by other getUpdates request", tg.ErrorConflict), delivery.OutcomeConflict},
		{errors.New("error response from telegram for method sendMessage, 502 Bad Gateway"), delivery.OutcomeServerError},
		{errors.New("error response from telegram for method sendMessage, 420 FLOOD"), delivery.OutcomeRefused},
		{fmt.Errorf("error do request for method sendMessage, %w", context.DeadlineExceeded), delivery.OutcomeTimeout},
		{fmt.Errorf("error do request for method sendMessage, %w", slow), delivery.OutcomeTimeout},
		{fmt.Errorf("error do request for method sendMessage, %w", dial), delivery.OutcomeNetwork},
		{errors.New("error decode response body for method sendMessage, <html>"), delivery.OutcomeNetwork},
	}
	for _, tt := range tests {
		if got := delivery.Outcome(tt.err); got != tt.want {
			t.Errorf("Outcome(%v) = %s; want %s", tt.err, got, tt.want)
		}
	}
	for code, want := range map[int]string{400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
		409: "conflict", 429: "too_many_requests", 500: "server_error", 502: "server_error", 420: "refused", 0: "refused"} {
		if got := delivery.StatusOutcome(code); got != want {
			t.Errorf("StatusOutcome(%d) = %s; want %s", code, got, want)
		}
	}
}

// recorder keeps what an Observer was told.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) TelegramCalled(method, outcome string, retryAfter time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("%s %s %v", method, outcome, retryAfter))
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.calls)
}

// The errors the Bot API client really returns, for answers as Telegram
// gives them, are told as what they are.
func TestObserverHearsTelegramsAnswers(t *testing.T) {
	srv := telegramtest.NewServer(telegramtest.Options{Token: token})
	t.Cleanup(srv.Close)
	rec := &recorder{}
	tgm, err := delivery.New(delivery.Options{Token: ryo.Secret(token), APIURL: srv.URL(), CallTimeout: 10 * time.Second, Observer: rec},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tgm.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	alice := telegramtest.NewUser("Alice", "alice")
	chat := telegramtest.PrivateChat(alice)
	srv.SendText(chat, alice, "draw a long one")
	place := ryo.Place{ChatID: chat.ID}
	if _, err := tgm.SendPhoto(ctx, place, 0, "thin.png", pngHeader(4000, 100), ""); err != nil {
		t.Fatal(err)
	}
	srv.FailNext("sendMessage", 1, telegramtest.APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"})
	if _, err := tgm.Send(ctx, place, 0, render.Part{Plain: "hello again"}); !errors.Is(err, tg.ErrorForbidden) {
		t.Fatalf("err = %v", err)
	}
	want := "[sendPhoto bad_request 0s sendDocument ok 0s sendMessage forbidden 0s]"
	if got := rec.String(); got != want {
		t.Fatalf("observed %s; want %s", got, want)
	}
}
