package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/ryo-bot/ryo/lang"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
	"github.com/ryo-bot/ryo/websearch"
	"github.com/ryo-bot/ryo/websearchtest"
)

const searchKey = "BSAsearchkey0123456789"

// searchBus is a tool bus with web_search asking the fake, through
// SearxNG or Brave, and what it logs.
func searchBus(t *testing.T, provider string) (*toolbus.Registry, *websearchtest.Server, *bytes.Buffer) {
	t.Helper()
	fake := websearchtest.NewServer(websearchtest.Options{BraveKey: searchKey})
	t.Cleanup(fake.Close)
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	var s websearch.Searcher
	if provider == "brave" {
		u, _ := url.Parse(fake.BraveURL())
		s = websearch.Brave{APIKey: ryo.Secret(searchKey), BaseURL: u, Timeout: 5 * time.Second, Clock: clock}
	} else {
		u, _ := url.Parse(fake.SearxNGURL())
		s = websearch.SearxNG{BaseURL: u, Timeout: 5 * time.Second, Clock: clock}
	}
	var logs bytes.Buffer
	r := toolbus.NewRegistry()
	if err := r.Register(tools.WebSearch(tools.WebSearchConfig{Searcher: websearch.NewCached(s, 5*time.Minute, 0, clock),
		Timeout: 5 * time.Second, Log: slog.New(slog.NewTextHandler(&logs, nil))})); err != nil {
		t.Fatal(err)
	}
	return r, fake, &logs
}

// search runs web_search once: each call has its own idempotency key, as
// calls in different rounds do.
func search(r *toolbus.Registry, args string) toolbus.Result {
	return r.Run(context.Background(), toolbus.Call{ID: "c1", Key: fmt.Sprint(time.Now().UnixNano()), Tool: "web_search", Args: json.RawMessage(args)})
}

// The model reads each result's title, address, snippet, date and site,
// and is told to cite links; the recency and count reach the provider.
func TestWebSearchShowsResultsToCite(t *testing.T) {
	for _, provider := range []string{"searxng", "brave"} {
		r, fake, _ := searchBus(t, provider)
		fake.SetPages(
			websearchtest.Page{Title: "Mars sample return <b>delayed</b>", URL: "https://news.example.com/mars", Content: "NASA &amp; ESA said…", Published: "2026-11-26T06:00:00"},
			websearchtest.Page{Title: "Undated", URL: "https://blog.example.org/m"},
		)
		res := search(r, `{"query":"Mars sample return","recency":"day","count":2}`)
		if res.Status != "ok" {
			t.Fatalf("%s: %+v", provider, res.Error)
		}
		var out struct {
			Query   string
			Recency string
			Results []map[string]string
			Note    string
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		want := []map[string]string{
			{"title": "Mars sample return delayed", "url": "https://news.example.com/mars", "snippet": "NASA & ESA said…", "date": "2026-11-26", "source": "news.example.com"},
			{"title": "Undated", "url": "https://blog.example.org/m", "source": "blog.example.org"},
		}
		if len(out.Results) != 2 || out.Query != "Mars sample return" || out.Recency != "day" || !strings.Contains(out.Note, "[title](url)") {
			t.Fatalf("%s: %s", provider, res.Output)
		}
		for i := range want {
			for k, v := range want[i] {
				if out.Results[i][k] != v {
					t.Errorf("%s: result %d %s = %q; want %q", provider, i, k, out.Results[i][k], v)
				}
			}
			if _, ok := out.Results[i]["date"]; !ok && want[i]["date"] != "" {
				t.Errorf("%s: no date", provider)
			}
		}
		q := fake.Queries()[0]
		if provider == "searxng" && q.TimeRange != "day" || provider == "brave" && (q.Freshness != "pd" || q.Count != "4") {
			t.Errorf("%s: the provider was asked %+v", provider, q)
		}
	}
}

// The status message names the query, on one short line.
func TestWebSearchSaysWhatItSearches(t *testing.T) {
	spec := tools.WebSearch(tools.WebSearchConfig{})
	if got := doingLine(spec, json.RawMessage(`{"query":"kernel\n 6.12  release"}`)); got != "🔎 searching the web for kernel 6.12 release" {
		t.Fatalf("doing = %q", got)
	}
	long := doingLine(spec, json.RawMessage(`{"query":"`+strings.Repeat("word ", 40)+`"}`))
	if n := len([]rune(long)); n > 90 || !strings.HasPrefix(long, "🔎 searching the web for word") {
		t.Fatalf("doing = %q (%d)", long, n)
	}
	if got := doingLine(spec, json.RawMessage(`{}`)); got != "🔎 searching the web" {
		t.Fatalf("doing without a query = %q", got)
	}
	if spec.Category != toolbus.Web || spec.Effect != toolbus.ReadOnly {
		t.Fatalf("spec = %+v", spec)
	}
}

// Broken arguments are refused before any provider is asked, with what to
// change.
func TestWebSearchArguments(t *testing.T) {
	r, fake, _ := searchBus(t, "searxng")
	for args, want := range map[string]string{
		`{}`:                                 "invalid_arguments",
		`{"query":""}`:                       "invalid_arguments",
		`{"query":"   "}`:                    "query must be 1 to 300",
		`{"query":"x","recency":"hour"}`:     "invalid_arguments",
		`{"query":"x","count":0}`:            "invalid_arguments",
		`{"query":"x","count":11}`:           "invalid_arguments",
		`{"query":"x","site":"example.org"}`: "invalid_arguments",
		`{"query":"` + strings.Repeat("a", 301) + `"}`: "invalid_arguments",
	} {
		res := search(r, args)
		if res.Status != "error" || !strings.Contains(res.Error.Code+": "+res.Error.Message, want) {
			t.Errorf("%s: %+v", args, res.Error)
		}
	}
	if n := len(fake.Queries()); n != 0 {
		t.Fatalf("the provider was asked %d times", n)
	}
	if res := search(r, `{"query":"x"}`); res.Status != "ok" || !strings.Contains(string(res.Output), "Nothing found") {
		t.Fatalf("nothing found: %s %+v", res.Output, res.Error)
	}
}

// Each failure reaches the model as a code it can act on and a message it
// can relay, and the owner as a log line; the key is in neither, and a
// failure is not kept: the next search asks again.
func TestWebSearchFailures(t *testing.T) {
	for _, tc := range []struct {
		provider string
		failure  websearchtest.Failure
		code     string
		message  string
		log      string
	}{
		{"searxng", websearchtest.RateLimited, "rate_limited", "do not search again", "kind=\"rate limited\""},
		{"brave", websearchtest.RateLimited, "rate_limited", "for about 1 second;", "retry_after=1s"},
		{"brave", websearchtest.QuotaSpent, "rate_limited", "for about 16 days (its quota is spent)", "status=429"},
		{"searxng", websearchtest.JSONDisabled, "search_unavailable", "search.formats", "status=403"},
		{"brave", websearchtest.Unauthorized, "search_unavailable", "owner", "status=401"},
		{"searxng", websearchtest.Malformed, "search_unavailable", "not SearxNG's JSON", "kind=unavailable"},
		{"searxng", websearchtest.EnginesFailed, "search_unavailable", "no engine answered", "kind=unavailable"},
		{"brave", websearchtest.ServerError, "search_unavailable", "try again later", "status=502"},
	} {
		r, fake, logs := searchBus(t, tc.provider)
		fake.SetPages(websearchtest.Page{Title: "t", URL: "https://a.example/"})
		fake.Fail(tc.failure)
		res := search(r, `{"query":"anything"}`)
		if res.Status != "error" || res.Error.Code != tc.code || !strings.Contains(res.Error.Message, tc.message) {
			t.Errorf("%s %d: %+v", tc.provider, tc.failure, res.Error)
		}
		if !strings.Contains(logs.String(), "web search failed") || !strings.Contains(logs.String(), tc.log) {
			t.Errorf("%s %d: log %q", tc.provider, tc.failure, logs.String())
		}
		if strings.Contains(logs.String()+res.Error.Message, searchKey) {
			t.Errorf("%s %d: the key leaked", tc.provider, tc.failure)
		}
		if again := search(r, `{"query":"anything"}`); again.Status != "ok" {
			t.Errorf("%s %d: the failure was kept: %+v", tc.provider, tc.failure, again.Error)
		}
	}
}

// Ten results at their longest reach the model whole, not cut.
func TestWebSearchLongestResultsFit(t *testing.T) {
	r, fake, _ := searchBus(t, "searxng")
	var pages []websearchtest.Page
	for i := range 10 {
		pages = append(pages, websearchtest.Page{Title: strings.Repeat("T", 500), URL: fmt.Sprintf("https://example.org/%d/%s", i, strings.Repeat("p", 960)),
			Content: strings.Repeat("&quot;", 600), Published: "2026-11-26T00:00:00"})
	}
	fake.SetPages(pages...)
	res := search(r, `{"query":"long","count":10}`)
	var out struct{ Results []map[string]string }
	if res.Status != "ok" || res.Truncated || json.Unmarshal(res.Output, &out) != nil || len(out.Results) != 10 {
		t.Fatalf("truncated %v: %d bytes", res.Truncated, len(res.Output))
	}
}

// doingLine is the status line spec shows, in English, for a call with
// args.
func doingLine(spec toolbus.Spec, args json.RawMessage) string {
	return lang.For("en").MessageAbout(spec.DoingOf(args))
}
