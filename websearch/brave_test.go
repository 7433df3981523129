package websearch_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/websearch"
	"github.com/ryo-bot/ryo/websearchtest"
)

const braveKey = "BSAtestkey0123456789"

func brave(t *testing.T, fake *websearchtest.Server, key string) websearch.Brave {
	t.Helper()
	u, err := url.Parse(fake.BraveURL())
	if err != nil {
		t.Fatal(err)
	}
	return websearch.Brave{APIKey: ryo.Secret(key), BaseURL: u, Timeout: 5 * time.Second, Clock: clocktest.New(now)}
}

// Brave's results arrive cleaned, dated from page_age, or from age in
// words or as a date; the key travels in its header, the count and the
// freshness as Brave names them.
func TestBraveReadsItsResults(t *testing.T) {
	fake := newFake(t, websearchtest.Options{BraveKey: braveKey})
	fake.SetPages(
		websearchtest.Page{Title: "Rust 2.0 &#x27;announced&#x27;", URL: "https://blog.example.com/rust", Content: "The <strong>Rust</strong> team &amp; friends…", Published: "2026-11-24T10:00:00", Age: "2 days ago"},
		websearchtest.Page{Title: "Hours", URL: "https://b.example.com/", Content: "x", Age: "3 hours ago"},
		websearchtest.Page{Title: "A date", URL: "https://c.example.com/", Content: "y", Age: "November 20, 2026"},
		websearchtest.Page{Title: "Nonsense age", URL: "https://d.example.com/", Content: "z", Age: "sometime"},
		websearchtest.Page{Title: "ftp", URL: "ftp://e.example.com/", Content: "z"},
	)
	got, err := brave(t, fake, braveKey).Search(context.Background(), websearch.Query{Text: "rust 2.0", Count: 5, Recency: "week"})
	if err != nil {
		t.Fatal(err)
	}
	want := []websearch.Result{
		{Title: "Rust 2.0 'announced'", URL: "https://blog.example.com/rust", Snippet: "The Rust team & friends…", Published: time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC), Source: "blog.example.com"},
		{Title: "Hours", URL: "https://b.example.com/", Snippet: "x", Published: now.Add(-3 * time.Hour), Source: "b.example.com"},
		{Title: "A date", URL: "https://c.example.com/", Snippet: "y", Published: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Source: "c.example.com"},
		{Title: "Nonsense age", URL: "https://d.example.com/", Snippet: "z", Source: "d.example.com"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	qs := fake.Queries()
	if len(qs) != 1 || qs[0].Token != braveKey || qs[0].Freshness != "pw" || qs[0].Count != "10" || qs[0].Q != "rust 2.0" {
		t.Fatalf("the fake was asked %+v", qs)
	}
}

// Each way Brave fails is an *Error of the kind that says what to do; a
// rate limit says how long to wait from Brave's headers, and the key is
// never in the error.
func TestBraveFailures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		failure websearchtest.Failure
		key     string
		kind    websearch.Kind
		status  int
		detail  string
		retry   time.Duration
	}{
		{"wrong key", 0, "BSAwrongkey999", websearch.Refused, 422, "SUBSCRIPTION_TOKEN_INVALID", 0},
		{"no key", 0, "", websearch.Refused, 422, "SUBSCRIPTION_TOKEN_INVALID", 0},
		{"unauthorized", websearchtest.Unauthorized, braveKey, websearch.Refused, 401, "UNAUTHORIZED", 0},
		{"blocked", websearchtest.JSONDisabled, braveKey, websearch.Refused, 403, "blocked", 0},
		{"per second", websearchtest.RateLimited, braveKey, websearch.RateLimited, 429, "RATE_LIMITED", time.Second},
		{"quota", websearchtest.QuotaSpent, braveKey, websearch.RateLimited, 429, "RATE_LIMITED", 1419704 * time.Second},
		{"server", websearchtest.EnginesFailed, braveKey, websearch.Unavailable, 500, "INTERNAL_ERROR", 0},
		{"proxy", websearchtest.ServerError, braveKey, websearch.Unavailable, 502, "no reason given", 0},
		{"malformed", websearchtest.Malformed, braveKey, websearch.Unavailable, 200, "not Brave's JSON", 0},
		{"shape", websearchtest.WrongShape, braveKey, websearch.Unavailable, 200, "not Brave's JSON", 0},
	} {
		fake := newFake(t, websearchtest.Options{BraveKey: braveKey})
		fake.SetPages(websearchtest.Page{Title: "t", URL: "https://a.example/"})
		if tc.failure != 0 {
			fake.Fail(tc.failure)
		}
		_, err := brave(t, fake, tc.key).Search(context.Background(), websearch.Query{Text: "q", Count: 5})
		var e *websearch.Error
		if !errors.As(err, &e) || e.Kind != tc.kind || e.Status != tc.status || !strings.Contains(e.Detail, tc.detail) || e.RetryAfter != tc.retry {
			t.Errorf("%s: err = %#v", tc.name, err)
		}
		if err != nil && tc.key != "" && strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: the key is in %q", tc.name, err)
		}
	}
}

// Nothing found is no results: Brave leaves web out.
func TestBraveNothingFound(t *testing.T) {
	fake := newFake(t, websearchtest.Options{BraveKey: braveKey})
	got, err := brave(t, fake, braveKey).Search(context.Background(), websearch.Query{Text: "zzzz", Count: 3})
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("got %#v, %v", got, err)
	}
}
