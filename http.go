package ryo

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RetryAfter is the wait a server's Retry-After header asks for, read in
// seconds or as an HTTP date against now; 0 when it is missing,
// unreadable, past, or longer than longest (no server means a wait of
// years, and a number that large would overflow a Duration).
func RetryAfter(h http.Header, now time.Time, longest time.Duration) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 || n > int64(longest/time.Second) {
			return 0
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d < 0 || d > longest {
		return 0
	}
	return d
}

// TransportProblem says in a few words why a request got no answer,
// without its address, which may carry credentials or a token.
func TransportProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return "connection refused"
	case strings.Contains(msg, "no such host"):
		return "unknown host"
	}
	if r := []rune(msg); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return msg
}
