package websearch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxAnswer is the most bytes of one answer read: SearxNG's page of
// results with every engine's extras is well under a megabyte.
const maxAnswer = 4 << 20

// get asks for endpoint with header and reads the answer's body. Its error
// says why there was no answer in a few words, never with the address,
// which may carry credentials.
func get(ctx context.Context, client *http.Client, endpoint string, header http.Header) (*http.Response, []byte, error) {
	if client == nil {
		client = &http.Client{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, nil, errors.New("the address is not usable")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, errors.New(transportProblem(ctx, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, nil, errors.New("the answer broke off: " + transportProblem(ctx, err))
	}
	if len(body) > maxAnswer {
		return nil, nil, errors.New("the answer is larger than 4 MB")
	}
	return resp, body, nil
}

// transportProblem says in a few words why a request got no answer.
func transportProblem(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "no answer in time"
	}
	if ctx.Err() != nil {
		return "cancelled"
	}
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
	return clip(msg, 120)
}

// retryAfter reads Retry-After in seconds or as an HTTP date; 0 when it
// is missing or unreadable.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
