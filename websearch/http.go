package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// maxAnswer is the most bytes of one answer read: SearxNG's page of
// results with every engine's extras is well under a megabyte.
const maxAnswer = 4 << 20

// errOtherHost is a redirect that was not followed: to another host, or
// from https to http. A key in a header would go with it (the client
// drops only its own Authorization and cookies on the way), and so
// would an address's credentials.
var errOtherHost = errors.New("it redirects to another host, which ryo does not follow")

// maxFound is the most results, or failed engines, read from one answer:
// a provider sends a page of 10 to 40. The rest of a longer list is not
// read, so that an answer of a million empty results, a few megabytes,
// costs no more memory than its bytes.
const maxFound = 100

// firstOf is a JSON array of which the first maxFound elements are read.
// An element that is not a T is skipped (one result of another shape
// does not lose the others); null is an empty list.
type firstOf[T any] []T

func (f *firstOf[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil || tok == nil {
		*f = nil
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("a list was expected, not %s", b[:min(len(b), 1)])
	}
	var out []T
	for seen := 0; dec.More() && seen < maxFound; seen++ {
		var v T
		if err := dec.Decode(&v); err != nil {
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				return err
			}
			continue
		}
		out = append(out, v)
	}
	*f = out
	return nil
}

// get asks for endpoint with header and reads the answer's body. Its error
// says why there was no answer in a few words, never with the address,
// which may carry credentials. A redirect is followed only within the
// endpoint's host.
func get(ctx context.Context, client *http.Client, endpoint string, header http.Header) (*http.Response, []byte, error) {
	c := http.Client{}
	if client != nil {
		c = *client
	}
	c.CheckRedirect = sameHost(c.CheckRedirect)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, nil, errors.New("the address is not usable")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if errors.Is(err, errOtherHost) {
		return nil, nil, errOtherHost
	}
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

// sameHost refuses a redirect away from the first request's host and
// port, or down from https, then asks next, the client's own policy (at
// most ten redirects when nil).
func sameHost(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if !strings.EqualFold(req.URL.Host, first.Host) || first.Scheme == "https" && req.URL.Scheme != "https" {
			return errOtherHost
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// failureKind is the Kind of a request that got no answer: the owner must
// fix an address that redirects away; anything else may pass.
func failureKind(err error) Kind {
	if errors.Is(err, errOtherHost) {
		return Refused
	}
	return Unavailable
}

// transportProblem says in a few words why a request got no answer.
func transportProblem(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "no answer in time"
	}
	if ctx.Err() != nil {
		return "cancelled"
	}
	return ryo.TransportProblem(err)
}

// maxWait is the longest wait a provider is believed: a quota's month.
const maxWait = 32 * 24 * time.Hour

// believable is d, or 0 (unknown) when it is longer than maxWait.
func believable(d time.Duration) time.Duration {
	if d < 0 || d > maxWait {
		return 0
	}
	return d
}

// seconds is n seconds as a wait, 0 when it is not believable (and
// before it overflows a Duration).
func seconds(n int64) time.Duration {
	if n < 0 || n > int64(maxWait/time.Second) {
		return 0
	}
	return time.Duration(n) * time.Second
}
