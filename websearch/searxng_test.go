package websearch_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/websearch"
	"github.com/ryo-bot/ryo/websearchtest"
)

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func searxng(t *testing.T, fake *websearchtest.Server) websearch.SearxNG {
	t.Helper()
	u, err := url.Parse(fake.SearxNGURL())
	if err != nil {
		t.Fatal(err)
	}
	return websearch.SearxNG{BaseURL: u, Timeout: 5 * time.Second, Clock: clocktest.New(now)}
}

func newFake(t *testing.T, opts websearchtest.Options) *websearchtest.Server {
	fake := websearchtest.NewServer(opts)
	t.Cleanup(fake.Close)
	return fake
}

// SearxNG's results arrive cleaned: markup and entities out of titles and
// snippets, dates read with and without a zone, null dates unknown, other
// schemes and repeats dropped, the count kept.
func TestSearxNGReadsItsResults(t *testing.T) {
	fake := newFake(t, websearchtest.Options{})
	fake.SetPages(
		websearchtest.Page{Title: "Kernel 6.12 &amp; you", URL: "https://lwn.net/Articles/1/", Content: "The <b>kernel</b> 6.12 release adds &quot;sched_ext&quot;.", Published: "2026-11-25T00:00:00"},
		websearchtest.Page{Title: "No date", URL: "https://example.org/a", Content: "plain"},
		websearchtest.Page{Title: "Zoned", URL: "https://example.org/b", Content: "x", Published: "2026-11-26T09:30:00+02:00"},
		websearchtest.Page{Title: "A magnet", URL: "magnet:?xt=urn:btih:abc", Content: "torrent"},
		websearchtest.Page{Title: "Script", URL: "javascript:alert(1)", Content: "x"},
		websearchtest.Page{Title: "Again", URL: "https://www.lwn.net/Articles/1", Content: "the same page"},
		websearchtest.Page{Title: "", URL: "http://untitled.example.com/x", Content: "", Published: "garbage"},
		websearchtest.Page{Title: "Sixth", URL: "https://example.org/c"},
	)
	got, err := searxng(t, fake).Search(context.Background(), websearch.Query{Text: "kernel 6.12", Count: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []websearch.Result{
		{Title: "Kernel 6.12 & you", URL: "https://lwn.net/Articles/1/", Snippet: `The kernel 6.12 release adds "sched_ext".`, Published: time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), Source: "lwn.net"},
		{Title: "No date", URL: "https://example.org/a", Snippet: "plain", Source: "example.org"},
		{Title: "Zoned", URL: "https://example.org/b", Snippet: "x", Published: time.Date(2026, 11, 26, 7, 30, 0, 0, time.UTC), Source: "example.org"},
		{Title: "untitled.example.com", URL: "http://untitled.example.com/x", Source: "untitled.example.com"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if qs := fake.Queries(); len(qs) != 1 || qs[0].Q != "kernel 6.12" || qs[0].TimeRange != "" {
		t.Fatalf("the fake was asked %+v", qs)
	}
}

// A recency becomes SearxNG's time_range, and what is dated before the
// window (with a day's slack) is left out; undated results stay.
func TestSearxNGRecency(t *testing.T) {
	fake := newFake(t, websearchtest.Options{})
	fake.SetPages(
		websearchtest.Page{Title: "today", URL: "https://a.example/1", Published: "2026-11-26T08:00:00"},
		websearchtest.Page{Title: "last year", URL: "https://a.example/2", Published: "2025-01-01T00:00:00"},
		websearchtest.Page{Title: "undated", URL: "https://a.example/3"},
	)
	for recency, want := range map[string]string{"day": "day", "week": "week", "month": "month", "year": "year"} {
		got, err := searxng(t, fake).Search(context.Background(), websearch.Query{Text: "news", Count: 5, Recency: recency})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Title != "today" || got[1].Title != "undated" {
			t.Errorf("%s: got %+v", recency, got)
		}
		qs := fake.Queries()
		if tr := qs[len(qs)-1].TimeRange; tr != want {
			t.Errorf("%s: time_range %q", recency, tr)
		}
	}
}

// Each way SearxNG fails is an *Error of the kind that says what to do.
func TestSearxNGFailures(t *testing.T) {
	for _, tc := range []struct {
		failure websearchtest.Failure
		kind    websearch.Kind
		status  int
		detail  string
	}{
		{websearchtest.RateLimited, websearch.RateLimited, 429, "limiter"},
		{websearchtest.JSONDisabled, websearch.Refused, 403, "search.formats"},
		{websearchtest.Unauthorized, websearch.Refused, 401, "credentials"},
		{websearchtest.ServerError, websearch.Unavailable, 502, "502 Bad Gateway"},
		{websearchtest.Malformed, websearch.Unavailable, 200, "not SearxNG's JSON"},
		{websearchtest.WrongShape, websearch.Unavailable, 200, "not SearxNG's JSON"},
		{websearchtest.EnginesFailed, websearch.Unavailable, 200, "google (Suspended: too many requests), duckduckgo (timeout)"},
	} {
		fake := newFake(t, websearchtest.Options{})
		fake.SetPages(websearchtest.Page{Title: "t", URL: "https://a.example/"})
		fake.Fail(tc.failure)
		_, err := searxng(t, fake).Search(context.Background(), websearch.Query{Text: "q", Count: 5})
		var e *websearch.Error
		if !errors.As(err, &e) || e.Kind != tc.kind || e.Status != tc.status || !strings.Contains(e.Detail, tc.detail) || e.Provider != "searxng" {
			t.Errorf("failure %d: err = %#v", tc.failure, err)
		}
	}
}

// An instance that is not there, or too slow, is Unavailable, within the
// deadline.
func TestSearxNGGoneOrSlow(t *testing.T) {
	fake := websearchtest.NewServer(websearchtest.Options{})
	gone := searxng(t, fake)
	fake.Close()
	_, err := gone.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	var e *websearch.Error
	if !errors.As(err, &e) || e.Kind != websearch.Unavailable || e.Detail != "connection refused" {
		t.Fatalf("gone: %v", err)
	}

	slow := newFake(t, websearchtest.Options{})
	slow.Hold()
	s := searxng(t, slow)
	s.Timeout = 50 * time.Millisecond
	_, err = s.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if !errors.As(err, &e) || e.Kind != websearch.Unavailable || e.Detail != "no answer in time" {
		t.Fatalf("slow: %v", err)
	}
}

// An empty answer with engines that did answer is no results, not an
// error; a base path is kept.
func TestSearxNGNothingFoundAndBasePath(t *testing.T) {
	fake := newFake(t, websearchtest.Options{})
	s := searxng(t, fake)
	got, err := s.Search(context.Background(), websearch.Query{Text: "zzzz", Count: 5})
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
	s.BaseURL = s.BaseURL.JoinPath("searx")
	_, err = s.Search(context.Background(), websearch.Query{Text: "zzzz", Count: 5})
	var e *websearch.Error
	if !errors.As(err, &e) || e.Status != 404 || e.Kind != websearch.Refused {
		t.Fatalf("at /searx: %v", err)
	}
}
