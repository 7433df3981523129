package intake

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"
)

type told []string

func (t *told) TelegramCalled(method, outcome string, retryAfter time.Duration) {
	*t = append(*t, fmt.Sprintf("%s %s %v", method, outcome, retryAfter))
}

// Each getUpdates is told with its outcome, a 429 with its retry_after;
// one that shutdown cut short is no outcome of Telegram's.
func TestPollerTellsEachGetUpdates(t *testing.T) {
	var got told
	p := NewPoller(Options{APIURL: "http://127.0.0.1:1", Observer: &got}, slog.New(slog.DiscardHandler))
	_, tooMany := decodeUpdates(429, []byte(`{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`))
	_, conflict := decodeUpdates(409, []byte(`{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"}`))
	ctx := context.Background()
	p.observe(ctx, nil)
	p.observe(ctx, tooMany)
	p.observe(ctx, conflict)
	p.observe(ctx, context.DeadlineExceeded)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	p.observe(stopped, context.Canceled)
	want := "[getUpdates ok 0s getUpdates too_many_requests 7s getUpdates conflict 0s getUpdates timeout 0s]"
	if fmt.Sprint(got) != want {
		t.Fatalf("told %v; want %s", got, want)
	}
}
