package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// SearxNG asks a SearxNG instance through its JSON API: GET /search with
// q and format=json. The instance must list json under search.formats in
// its settings.yml; otherwise it answers 403.
type SearxNG struct {
	// BaseURL is the instance, such as http://searxng:8080; a path is
	// kept (an instance behind a proxy at /searx).
	BaseURL *url.URL
	Client  *http.Client  // a client without a timeout of its own when nil
	Timeout time.Duration // one search; 10 seconds when zero
	Clock   ryo.Clock     // for the recency of results; the system's when nil
}

// searxngAnswer is the part of SearxNG's JSON answer ryo reads, as its web
// application writes it (the JSON output of its search view): the query,
// results with url, title, content (HTML-escaped, matches marked), engine
// and publishedDate (an ISO 8601 date-time, often without a zone, or null),
// and unresponsive_engines as [name, reason] pairs. number_of_results is
// often 0 even with results, so it is not read; answers, infoboxes,
// suggestions and corrections are not used.
type searxngAnswer struct {
	Query        string                   `json:"query"`
	Results      firstOf[searxngResult]   `json:"results"`
	Unresponsive firstOf[json.RawMessage] `json:"unresponsive_engines"`
}

type searxngResult struct {
	URL           string  `json:"url"`
	Title         string  `json:"title"`
	Content       string  `json:"content"`
	Engine        string  `json:"engine"`
	PublishedDate *string `json:"publishedDate"`
}

// searxngTimeRanges are SearxNG's time_range values, one per recency.
var searxngTimeRanges = map[string]string{Day: "day", Week: "week", Month: "month", Year: "year"}

// Search asks the instance for q.
func (s SearxNG) Search(ctx context.Context, q Query) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(s.Timeout))
	defer cancel()
	params := url.Values{"q": {q.Text}, "format": {"json"}, "pageno": {"1"}}
	if tr := searxngTimeRanges[q.Recency]; tr != "" {
		params.Set("time_range", tr)
	}
	endpoint := s.endpoint()
	endpoint.RawQuery = params.Encode()
	resp, body, err := get(ctx, s.Client, endpoint.String(), nil)
	if err != nil {
		return nil, &Error{Provider: "searxng", Kind: failureKind(err), Detail: err.Error()}
	}
	if e := searxngFailure(resp, body); e != nil {
		return nil, e
	}
	var answer searxngAnswer
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, &Error{Provider: "searxng", Kind: Unavailable, Status: resp.StatusCode, Detail: "the answer is not SearxNG's JSON: " + jsonProblem(err)}
	}
	found := make([]Result, 0, len(answer.Results))
	for _, r := range answer.Results {
		found = append(found, Result{Title: r.Title, URL: r.URL, Snippet: r.Content, Published: searxngDate(r.PublishedDate)})
	}
	results := tidy(found, q, clockOf(s.Clock).Now())
	if len(answer.Results) == 0 && len(answer.Unresponsive) > 0 {
		// Every engine it asked failed: that is no answer, not an empty one.
		return nil, &Error{Provider: "searxng", Kind: Unavailable, Status: resp.StatusCode, Detail: "no engine answered: " + unresponsive(answer.Unresponsive)}
	}
	return results, nil
}

// endpoint is the instance's /search.
func (s SearxNG) endpoint() url.URL {
	u := *s.BaseURL
	u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	u.RawQuery, u.Fragment = "", ""
	return u
}

// searxngFailure reads an answer that is not results. SearxNG answers 403
// to a format its settings do not list, 429 when its limiter (bot
// detection) stops a client, and plain text or HTML in both cases.
func searxngFailure(resp *http.Response, body []byte) *Error {
	e := &Error{Provider: "searxng", Status: resp.StatusCode}
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests:
		e.Kind, e.RetryAfter, e.Detail = RateLimited, ryo.RetryAfter(resp.Header, time.Now(), maxWait), "its limiter stopped ryo; switch server.limiter off for ryo's network"
	case resp.StatusCode == http.StatusForbidden:
		e.Kind, e.Detail = Refused, "JSON output is not switched on: add json to search.formats in its settings.yml"
	case resp.StatusCode == http.StatusUnauthorized:
		e.Kind, e.Detail = Refused, "it asks for credentials: put them in RYO_SEARXNG_URL"
	case resp.StatusCode == http.StatusNotFound:
		e.Kind, e.Detail = Refused, "it has no /search: is RYO_SEARXNG_URL the instance's address?"
	case resp.StatusCode == http.StatusBadRequest:
		e.Kind, e.Detail = BadQuery, firstLine(body)
	default:
		e.Kind, e.Detail = Unavailable, firstLine(body)
	}
	return e
}

// searxngDate reads publishedDate: an ISO 8601 date-time, with or without
// a zone (UTC then), or a bare date; null, "" or anything else is unknown.
func searxngDate(s *string) time.Time {
	if s == nil {
		return time.Time{}
	}
	v := strings.TrimSpace(*s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return plausible(t)
		}
	}
	return time.Time{}
}

// plausible drops dates no page can have, such as year 1 or 9999.
func plausible(t time.Time) time.Time {
	if t.Year() < 1990 || t.Year() > 2200 {
		return time.Time{}
	}
	return t.UTC()
}

// unresponsive lists failed engines and why, as SearxNG reports them:
// [name, reason] pairs; anything else is shown as far as it reads.
func unresponsive(engines []json.RawMessage) string {
	var parts []string
	for _, raw := range engines {
		var pair []string
		var name string
		switch {
		case json.Unmarshal(raw, &pair) == nil && len(pair) > 0:
			part := pair[0]
			if len(pair) > 1 && pair[1] != "" {
				part += " (" + pair[1] + ")"
			}
			parts = append(parts, part)
		case json.Unmarshal(raw, &name) == nil:
			parts = append(parts, name)
		}
	}
	return clip(plain(strings.Join(parts, ", ")), 300)
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return 10 * time.Second
	}
	return d
}

func clockOf(c ryo.Clock) ryo.Clock {
	if c == nil {
		return ryo.SystemClock{}
	}
	return c
}

// firstLine is a provider's error text, short enough for a log line.
func firstLine(body []byte) string {
	text := plain(string(body))
	if text == "" {
		return "no reason given"
	}
	return clip(text, 200)
}

// jsonProblem says what is wrong with a body, without quoting it.
func jsonProblem(err error) string {
	return clip(fmt.Sprint(err), 120)
}
