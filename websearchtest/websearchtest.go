// Package websearchtest is a fake of the web search providers ryo speaks
// to, for tests: SearxNG's JSON API (GET /search) and Brave Search's web
// search API (GET /res/v1/web/search), on one server. It answers in each
// provider's own shape, as their documentation and source describe it —
// SearxNG's results with HTML in content and publishedDate often null,
// its unresponsive_engines pairs; Brave's ErrorResponse bodies and
// X-RateLimit-* headers — and fails the way they do: SearxNG's 403 when
// JSON output is off and 429 from its limiter, in plain text; Brave's 422
// for an unknown key, 429 with its headers, 422 for a bad parameter. It is
// as strict as they are about what it is asked, records every query, and
// can hold answers back to stand for a slow provider.
package websearchtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Page is one result the fake finds, whatever is asked.
type Page struct {
	Title   string
	URL     string
	Content string // SearxNG's content and Brave's description, as sent: may hold markup and entities
	// Published is SearxNG's publishedDate and Brave's page_age, as sent;
	// "" sends null to SearxNG's callers and leaves page_age out.
	Published string
	Age       string // Brave's age, such as "2 days ago"; "" leaves it out
}

// Failure is a way the next answer fails.
type Failure int

// Failures, each in the shape of the provider asked.
const (
	RateLimited   Failure = iota + 1 // SearxNG: 429 "Too Many Requests"; Brave: 429 RATE_LIMITED with X-RateLimit-* headers
	QuotaSpent                       // Brave: 429 RATE_LIMITED, the monthly window spent; SearxNG: as RateLimited
	JSONDisabled                     // SearxNG: 403 Forbidden, as when json is not in search.formats; Brave: 403
	Unauthorized                     // Brave: 401; SearxNG: 401 (an instance behind a login)
	Malformed                        // 200 with a body that is not JSON
	ServerError                      // 502 from a proxy in front
	EnginesFailed                    // SearxNG: 200, no results, every engine unresponsive; Brave: 500
	WrongShape                       // 200 with JSON of another shape: results as a string
)

// Query is one request as received.
type Query struct {
	Provider  string // "searxng" or "brave"
	Q         string
	TimeRange string // SearxNG's time_range
	Freshness string // Brave's freshness
	Count     string // Brave's count
	Token     string // Brave's X-Subscription-Token
}

// Options shape the fake.
type Options struct {
	BraveKey string // the key Brave requires; "" takes any non-empty key
}

// Server is the fake.
type Server struct {
	http *httptest.Server
	opts Options

	mu      sync.Mutex
	pages   []Page
	fail    []Failure
	queries []Query
	hold    chan struct{} // answers wait until it is closed; nil: answer at once
	arrived chan Query    // each query, for tests that wait for one; never blocks the fake
}

// NewServer starts a fake with no pages.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts, arrived: make(chan Query, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", s.searxng)
	mux.HandleFunc("GET /res/v1/web/search", s.brave)
	s.http = httptest.NewServer(mux)
	return s
}

// Close stops the fake, releasing held answers.
func (s *Server) Close() {
	s.Release()
	s.http.Close()
}

// SearxNGURL is the instance's address, as RYO_SEARXNG_URL takes it.
func (s *Server) SearxNGURL() string { return s.http.URL }

// BraveURL is the API's base, in place of websearch.BraveURL.
func (s *Server) BraveURL() string { return s.http.URL + "/res/v1" }

// SetPages sets what every search finds.
func (s *Server) SetPages(pages ...Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages = append([]Page(nil), pages...)
}

// Fail makes the next answers fail, one failure each, in order.
func (s *Server) Fail(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = append(s.fail, f...)
}

// Hold makes answers wait until Release, or until their request ends.
func (s *Server) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
}

// Release lets held answers go, and later ones go at once.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
}

// Queries are the requests received, in order.
func (s *Server) Queries() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Query(nil), s.queries...)
}

// Arrived delivers each request as it arrives (the first 64 not taken).
func (s *Server) Arrived() <-chan Query { return s.arrived }

// take records q and says how to answer it: the next failure, or 0.
func (s *Server) take(r *http.Request, q Query) (Failure, []Page, bool) {
	s.mu.Lock()
	s.queries = append(s.queries, q)
	hold := s.hold
	var f Failure
	if len(s.fail) > 0 {
		f, s.fail = s.fail[0], s.fail[1:]
	}
	pages := append([]Page(nil), s.pages...)
	s.mu.Unlock()
	select {
	case s.arrived <- q:
	default:
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return 0, nil, false
		}
	}
	return f, pages, true
}

// searxng answers as SearxNG's search view does with format=json.
func (s *Server) searxng(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := Query{Provider: "searxng", Q: v.Get("q"), TimeRange: v.Get("time_range")}
	f, pages, ok := s.take(r, q)
	if !ok || searxngFailure(w, f, q) {
		return
	}
	if v.Get("format") != "json" { // the instance would answer its HTML page
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!DOCTYPE html><html><body>results</body></html>")
		return
	}
	if strings.TrimSpace(q.Q) == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "No query"})
		return
	}
	switch q.TimeRange {
	case "", "day", "week", "month", "year":
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "search error"})
		return
	}
	unresponsive := [][]string{}
	if f == EnginesFailed {
		unresponsive = [][]string{{"google", "Suspended: too many requests"}, {"duckduckgo", "timeout"}}
		pages = nil
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"query": q.Q, "number_of_results": 0, "results": searxngResults(pages), "answers": []any{},
		"corrections": []any{}, "infoboxes": []any{}, "suggestions": []string{q.Q + " today"},
		"unresponsive_engines": unresponsive,
	})
}

// searxngFailure answers f the way SearxNG fails, and reports whether it
// did; EnginesFailed is an answer, not a failure of the request.
func searxngFailure(w http.ResponseWriter, f Failure, q Query) bool {
	switch f {
	case RateLimited, QuotaSpent:
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	case JSONDisabled:
		forbidden(w)
	case Unauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="searxng"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	case ServerError:
		badGateway(w)
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"query": "`+q.Q+`", "results": [{"url": "https://exa`)
	case WrongShape:
		writeJSON(w, http.StatusOK, map[string]any{"query": q.Q, "results": "none"})
	default:
		return false
	}
	return true
}

// searxngResults are pages as SearxNG's results, with the fields its
// JSON carries besides the ones ryo reads.
func searxngResults(pages []Page) []map[string]any {
	results := []map[string]any{}
	for i, p := range pages {
		var published any
		if p.Published != "" {
			published = p.Published
		}
		parsed := []string{"", "", "", "", "", ""}
		if u, err := url.Parse(p.URL); err == nil {
			parsed = []string{u.Scheme, u.Host, u.Path, "", u.RawQuery, u.Fragment}
		}
		results = append(results, map[string]any{
			"url": p.URL, "title": p.Title, "content": p.Content, "engine": "duckduckgo",
			"parsed_url": parsed, "template": "default.html", "engines": []string{"duckduckgo", "google"},
			"positions": []int{i + 1}, "publishedDate": published, "thumbnail": "", "score": 2.0 / float64(i+1),
			"category": "general", "priority": "",
		})
	}
	return results
}

// brave answers as Brave's web search endpoint does.
func (s *Server) brave(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := Query{Provider: "brave", Q: v.Get("q"), Freshness: v.Get("freshness"), Count: v.Get("count"), Token: r.Header.Get("X-Subscription-Token")}
	f, pages, ok := s.take(r, q)
	if !ok {
		return
	}
	w.Header().Set("X-RateLimit-Limit", "1, 15000")
	w.Header().Set("X-RateLimit-Policy", "1;w=1, 15000;w=2592000")
	if braveFailure(w, f) {
		return
	}
	if q.Token == "" || (s.opts.BraveKey != "" && q.Token != s.opts.BraveKey) {
		braveError(w, http.StatusUnprocessableEntity, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", "authentication")
		return
	}
	if problem := braveParams(v); problem != "" {
		braveError(w, http.StatusUnprocessableEntity, "VALIDATION", problem, "validation")
		return
	}
	w.Header().Set("X-RateLimit-Remaining", "0, 14990")
	w.Header().Set("X-RateLimit-Reset", "1, 1419704")
	count := 20
	if c := v.Get("count"); c != "" {
		count, _ = strconv.Atoi(c)
	}
	answer := map[string]any{
		"type":  "search",
		"query": map[string]any{"original": q.Q, "show_strict_warning": false, "is_navigational": false, "is_news_breaking": false, "spellcheck_off": true, "country": "us", "bad_results": false, "should_fallback": false, "more_results_available": len(pages) > count},
		"mixed": map[string]any{"type": "mixed", "main": []any{map[string]any{"type": "web", "index": 0, "all": true}}, "top": []any{}, "side": []any{}},
	}
	if len(pages) > 0 { // Brave leaves web out when it found nothing
		answer["web"] = map[string]any{"type": "search", "results": braveResults(pages[:min(len(pages), count)]), "family_friendly": true}
	}
	writeJSON(w, http.StatusOK, answer)
}

// braveFailure answers f the way Brave fails, and reports whether it did.
func braveFailure(w http.ResponseWriter, f Failure) bool {
	switch f {
	case RateLimited:
		w.Header().Set("X-RateLimit-Remaining", "0, 14990")
		w.Header().Set("X-RateLimit-Reset", "1, 1419704")
		braveError(w, http.StatusTooManyRequests, "RATE_LIMITED", "Request rate limit exceeded for plan.", "rate_limiter")
	case QuotaSpent:
		w.Header().Set("X-RateLimit-Remaining", "1, 0")
		w.Header().Set("X-RateLimit-Reset", "1, 1419704")
		braveError(w, http.StatusTooManyRequests, "RATE_LIMITED", "Request rate limit exceeded for plan.", "rate_limiter")
	case JSONDisabled:
		braveError(w, http.StatusForbidden, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is blocked.", "authentication")
	case Unauthorized:
		braveError(w, http.StatusUnauthorized, "UNAUTHORIZED", "Unauthorized.", "authentication")
	case ServerError:
		badGateway(w)
	case EnginesFailed:
		braveError(w, http.StatusInternalServerError, "INTERNAL_ERROR", "Something went wrong.", "search")
	case Malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type": "search", "web": {"results": [`)
	case WrongShape:
		writeJSON(w, http.StatusOK, map[string]any{"type": "search", "web": map[string]any{"results": "none"}})
	default:
		return false
	}
	return true
}

// braveResults are pages as Brave's web results, with the fields its
// JSON carries besides the ones ryo reads.
func braveResults(pages []Page) []map[string]any {
	results := []map[string]any{}
	for _, p := range pages {
		host := ""
		if u, err := url.Parse(p.URL); err == nil {
			host = u.Hostname()
		}
		res := map[string]any{
			"title": p.Title, "url": p.URL, "is_source_local": false, "is_source_both": false,
			"description": p.Content, "profile": map[string]any{"name": host, "url": p.URL, "long_name": host, "img": ""},
			"language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic",
			"meta_url": map[string]any{"scheme": "https", "netloc": host, "hostname": host, "favicon": "", "path": ""},
		}
		if p.Published != "" {
			res["page_age"] = p.Published
		}
		if p.Age != "" {
			res["age"] = p.Age
		}
		results = append(results, res)
	}
	return results
}

// braveParams checks what Brave checks of the parameters ryo sends.
func braveParams(v url.Values) string {
	q := v.Get("q")
	if strings.TrimSpace(q) == "" || len(q) > 400 || len(strings.Fields(q)) > 50 {
		return "Unable to validate request parameter(s): q"
	}
	if c := v.Get("count"); c != "" {
		if n, err := strconv.Atoi(c); err != nil || n < 1 || n > 20 {
			return "Unable to validate request parameter(s): count"
		}
	}
	switch v.Get("freshness") {
	case "", "pd", "pw", "pm", "py":
	default:
		return "Unable to validate request parameter(s): freshness"
	}
	return ""
}

func braveError(w http.ResponseWriter, status int, code, detail, component string) {
	writeJSON(w, status, map[string]any{
		"type":  "ErrorResponse",
		"error": map[string]any{"id": "8e4c2a63-0b5e-4c56-9f43-1f0f7c1b7d2e", "status": status, "code": code, "detail": detail, "meta": map[string]any{"component": component}},
		"time":  time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).Unix(),
	})
}

func forbidden(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprint(w, "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n<p>You don&#39;t have the permission to access the requested resource. It is either read-protected or not readable by the server.</p>\n")
}

func badGateway(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprint(w, "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
