package ryo_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                              0,
		"30":                            30 * time.Second,
		" 5 ":                           5 * time.Second,
		"-1":                            0,
		"99999999999":                   0, // past belief, and past a Duration
		"Thu, 26 Nov 2026 12:02:00 GMT": 2 * time.Minute,
		"Thu, 26 Nov 2026 11:00:00 GMT": 0, // past
		"Fri, 31 Dec 9999 23:59:59 GMT": 0,
		"soon":                          0,
	} {
		h := http.Header{}
		if v != "" {
			h.Set("Retry-After", v)
		}
		if got := ryo.RetryAfter(h, now, 24*time.Hour); got != want {
			t.Errorf("Retry-After %q = %v; want %v", v, got, want)
		}
	}
}

func TestTransportProblemHidesTheAddress(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "https://user:hunter2@stt.example/v1?key=s3cret", Err: errors.New("dial tcp 10.0.0.1:443: connect: connection refused")}
	if got := ryo.TransportProblem(err); got != "connection refused" {
		t.Errorf("TransportProblem = %q", got)
	}
	long := &url.Error{Op: "Get", URL: "https://x.example/?token=s3cret", Err: errors.New(strings.Repeat("é", 300))}
	if got := ryo.TransportProblem(long); strings.Contains(got, "s3cret") || len([]rune(got)) != 120 {
		t.Errorf("TransportProblem of a long error = %q", got)
	}
}
