package delivery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"

	"github.com/ryo-bot/ryo/render"
)

func TestClassify(t *testing.T) {
	dial := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}
	read := &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "read", Err: errors.New("connection reset")}}
	tests := []struct {
		name string
		err  error
		want outcome
		wait time.Duration
	}{
		{"429", &tg.TooManyRequestsError{RetryAfter: 7}, notDone, 7 * time.Second},
		{"bad request", fmt.Errorf("%w, message is not modified", tg.ErrorBadRequest), permanent, 0},
		{"blocked", fmt.Errorf("%w, bot was blocked by the user", tg.ErrorForbidden), permanent, 0},
		{"telegram 502", errors.New("error response from telegram for method sendMessage, 502 Bad Gateway"), notDone, 500 * time.Millisecond},
		{"telegram 420", errors.New("error response from telegram for method sendMessage, 420 FLOOD"), permanent, 0},
		{"never connected", fmt.Errorf("error do request for method sendMessage, %w", dial), notDone, 500 * time.Millisecond},
		{"dropped mid-request", fmt.Errorf("error do request for method sendMessage, %w", read), unclear, 500 * time.Millisecond},
		{"timeout", context.DeadlineExceeded, unclear, 500 * time.Millisecond},
		{"not telegram's body", errors.New("error decode response body for method sendMessage, <html>"), unclear, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, wait := classify(tt.err, 1)
			if got != tt.want || wait != tt.wait {
				t.Fatalf("classify = %v, %v; want %v, %v", got, wait, tt.want, tt.wait)
			}
		})
	}
	if retryable(true, unclear) || !retryable(false, unclear) || !retryable(true, notDone) {
		t.Fatal("a message that may have been sent must not be sent again; an edit may be repeated")
	}
}

func TestScrub(t *testing.T) {
	const token = "7234567890:AAHsecretpart_xyz0123456789"
	err := fmt.Errorf("wrapped: %w", errors.New("Cannot POST /bot7234567890:AAHsecretpart_xyz0123456789/getMe and AAHsecretpart_xyz0123456789"))
	got := Scrub(err, token)
	if got.Error() != "wrapped: Cannot POST /bot***/getMe and ***" || !errors.Is(got, errors.Unwrap(err)) {
		t.Fatalf("scrub = %q", got)
	}
	if plain := errors.New("nothing secret"); Scrub(plain, token) != plain {
		t.Fatal("scrub changed an error without the token")
	}
}

func TestDraftsRefused(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("%w, method not found", tg.ErrorNotFound), true},
		{fmt.Errorf("%w, TEXTDRAFT_PEER_INVALID", tg.ErrorBadRequest), true},
		{fmt.Errorf("%w, message text is too long", tg.ErrorBadRequest), false},
		{fmt.Errorf("%w, message is not modified", tg.ErrorBadRequest), false},
		{&tg.TooManyRequestsError{RetryAfter: 3}, false},
		{errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := draftsRefused(tt.err); got != tt.want {
			t.Errorf("draftsRefused(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
}

func TestRefusedMarkup(t *testing.T) {
	part := render.Part{HTML: "<b>x</b>", Plain: "x"}
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("%w, can't parse entities: unclosed tag", tg.ErrorBadRequest), true},
		{fmt.Errorf("%w, Entities_too_long", tg.ErrorBadRequest), true},
		{fmt.Errorf("%w, message is too long", tg.ErrorBadRequest), false},
		{errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := refusedMarkup(tt.err, part); got != tt.want {
			t.Errorf("refusedMarkup(%v) = %v; want %v", tt.err, got, tt.want)
		}
	}
	if refusedMarkup(tests[0].err, render.Part{Plain: "x"}) {
		t.Error("plain text was taken for refused markup")
	}
}
