package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// BraveURL is Brave Search's API.
const BraveURL = "https://api.search.brave.com/res/v1"

// Brave asks Brave Search's web search API: GET /web/search with q, the
// key in X-Subscription-Token.
type Brave struct {
	APIKey  ryo.Secret
	BaseURL *url.URL      // BraveURL when nil; tests point it at a fake
	Client  *http.Client  // a client without a timeout of its own when nil
	Timeout time.Duration // one search; 10 seconds when zero
	Clock   ryo.Clock     // reads ages such as "2 days ago"; the system's when nil
}

// braveAnswer is the part of Brave's web search answer ryo reads, as its
// API reference describes the WebSearchApiResponse: web.results with
// title, url, description (matches marked with <strong> unless
// text_decorations is off), page_age (an ISO 8601 date-time without a
// zone) and age (words: "2 days ago", or a date such as "May 1, 2024").
// web is missing when nothing was found.
type braveAnswer struct {
	Web *struct {
		Results firstOf[braveResult] `json:"results"`
	} `json:"web"`
}

type braveResult struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	PageAge     string `json:"page_age"`
	Age         string `json:"age"`
}

// braveError is Brave's error answer, an ErrorResponse: error.code names
// the problem (SUBSCRIPTION_TOKEN_INVALID, RATE_LIMITED, VALIDATION…),
// error.detail says it in words, error.status repeats the HTTP status.
type braveError struct {
	Type  string `json:"type"`
	Error *struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Status int    `json:"status"`
	} `json:"error"`
}

// braveFreshness is Brave's freshness, one per recency.
var braveFreshness = map[string]string{Day: "pd", Week: "pw", Month: "pm", Year: "py"}

// Search asks Brave for q.
func (b Brave) Search(ctx context.Context, q Query) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(b.Timeout))
	defer cancel()
	params := url.Values{"q": {q.Text}, "count": {strconv.Itoa(max(min(q.Count*2, 20), 1))}}
	if f := braveFreshness[q.Recency]; f != "" {
		params.Set("freshness", f)
	}
	endpoint := b.endpoint()
	endpoint.RawQuery = params.Encode()
	resp, body, err := get(ctx, b.Client, endpoint.String(), http.Header{"X-Subscription-Token": {b.APIKey.Reveal()}})
	if err != nil {
		return nil, &Error{Provider: "brave", Kind: failureKind(err), Detail: err.Error()}
	}
	if key := b.APIKey.Reveal(); key != "" { // a proxy, or Brave, that repeats it
		body = bytes.ReplaceAll(body, []byte(key), []byte("[key]"))
	}
	if e := braveFailure(resp, body); e != nil {
		return nil, e
	}
	var answer braveAnswer
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, &Error{Provider: "brave", Kind: Unavailable, Status: resp.StatusCode, Detail: "the answer is not Brave's JSON: " + jsonProblem(err)}
	}
	now := clockOf(b.Clock).Now()
	var found []Result
	if answer.Web != nil {
		for _, r := range answer.Web.Results {
			found = append(found, Result{Title: r.Title, URL: r.URL, Snippet: r.Description, Published: braveDate(r.PageAge, r.Age, now)})
		}
	}
	return tidy(found, q, now), nil
}

func (b Brave) endpoint() url.URL {
	u, _ := url.Parse(BraveURL)
	if b.BaseURL != nil {
		u = b.BaseURL
	}
	e := *u
	e.Path = strings.TrimSuffix(e.Path, "/") + "/web/search"
	e.RawQuery, e.Fragment = "", ""
	return e
}

// braveFailure reads an answer that is not results. Brave answers a key it
// does not know with 422 and SUBSCRIPTION_TOKEN_INVALID (401 or 403 for a
// missing or blocked one), a spent rate or quota with 429 and
// X-RateLimit-* headers, and bad parameters with 422 and VALIDATION.
func braveFailure(resp *http.Response, body []byte) *Error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	e := &Error{Provider: "brave", Status: resp.StatusCode, Detail: "no reason given"}
	var be braveError
	code := ""
	if json.Unmarshal(body, &be) == nil && be.Error != nil {
		code = be.Error.Code
		e.Detail = clip(plain(strings.TrimSpace(be.Error.Code+": "+be.Error.Detail)), 200)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || code == "RATE_LIMITED":
		e.Kind, e.RetryAfter = RateLimited, braveRetry(resp.Header)
	case code == "SUBSCRIPTION_TOKEN_INVALID" || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		e.Kind = Refused
	case resp.StatusCode == http.StatusUnprocessableEntity || resp.StatusCode == http.StatusBadRequest:
		e.Kind = BadQuery
	default:
		e.Kind = Unavailable
	}
	return e
}

// braveRetry is how long until Brave takes requests again. Its
// X-RateLimit-Remaining and X-RateLimit-Reset hold one value per window,
// comma-separated, shortest window first ("0, 1500" and "1, 1419704": one
// request a second, this many a month, reset in seconds): the wait is the
// longest reset among the spent windows. Retry-After wins when sent.
func braveRetry(h http.Header) time.Duration {
	if d := ryo.RetryAfter(h, time.Now(), maxWait); d > 0 {
		return d
	}
	remaining, reset := numbers(h.Get("X-RateLimit-Remaining")), numbers(h.Get("X-RateLimit-Reset"))
	var wait int64
	for i, r := range reset {
		if i < len(remaining) && remaining[i] == 0 {
			wait = max(wait, r)
		}
	}
	if wait == 0 && len(reset) > 0 {
		wait = reset[0]
	}
	return seconds(wait)
}

// numbers reads "1, 15000"; a value that is not a number ends the list.
func numbers(v string) []int64 {
	var out []int64
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 0 {
			break
		}
		out = append(out, n)
	}
	return out
}

// braveDate reads when a page was published: page_age, else age, which is
// relative ("3 hours ago", "2 days ago") or a date ("May 1, 2024").
func braveDate(pageAge, age string, now time.Time) time.Time {
	if t := searxngDate(&pageAge); !t.IsZero() {
		return t
	}
	age = strings.TrimSpace(age)
	if m := agoShape.FindStringSubmatch(strings.ToLower(age)); m != nil {
		n, _ := strconv.Atoi(m[1])
		if m[1] == "a" || m[1] == "an" {
			n = 1
		}
		unit, ok := ageUnits[strings.TrimSuffix(m[2], "s")]
		if ok && n <= 10000 { // more would overflow a Duration
			return plausible(now.Add(-time.Duration(n) * unit))
		}
	}
	for _, layout := range []string{"January 2, 2006", "Jan 2, 2006", "2 January 2006", "2006-01-02"} {
		if t, err := time.Parse(layout, age); err == nil {
			return plausible(t)
		}
	}
	return time.Time{}
}

var agoShape = regexp.MustCompile(`^(\d{1,9}|an?) (second|minute|hour|day|week|month|year)s? ago$`)

var ageUnits = map[string]time.Duration{
	"second": time.Second, "minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour,
	"week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour, "year": 365 * 24 * time.Hour,
}
