package websearch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/websearch"
)

// hostile is a provider that answers every request with answer.
func hostile(t *testing.T, answer http.HandlerFunc) *url.URL {
	t.Helper()
	srv := httptest.NewServer(answer)
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Brave's key goes to Brave's host only: a redirect to another host is
// not followed, and the owner is told why.
func TestBraveKeyNeverFollowsARedirect(t *testing.T) {
	const key = "BSAredirectkey0123456789"
	leaked := make(chan string, 1)
	other := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		leaked <- r.Header.Get("X-Subscription-Token")
		w.Write([]byte(`{"web":{"results":[]}}`))
	})
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.String()+"/res/v1/web/search?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
	})
	_, err := websearch.Brave{APIKey: ryo.Secret(key), BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	select {
	case got := <-leaked:
		t.Fatalf("the other host was asked, with key %q", got)
	default:
	}
	var e *websearch.Error
	if !errors.As(err, &e) || e.Kind != websearch.Refused || !strings.Contains(e.Detail, "redirects to another host") || strings.Contains(err.Error(), key) {
		t.Fatalf("err = %v", err)
	}
}

// A SearxNG instance behind a proxy may redirect within its own host (to
// add a slash, say); that is followed, with its credentials. Another host
// is not asked.
func TestSearxNGRedirects(t *testing.T) {
	var asked []string
	var u *url.URL
	u = hostile(t, func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		asked = append(asked, r.URL.Path+" "+user+":"+pass)
		if r.URL.Path == "/searx/search" {
			http.Redirect(w, r, "/searx/search/?"+r.URL.RawQuery, http.StatusMovedPermanently)
			return
		}
		w.Write([]byte(`{"results":[{"url":"https://a.example/","title":"found"}]}`))
	})
	base := *u
	base.User = url.UserPassword("ryo", "s3cret")
	base.Path = "/searx/"
	got, err := websearch.SearxNG{BaseURL: &base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if len(asked) != 2 || asked[0] != "/searx/search ryo:s3cret" || asked[1] != "/searx/search/ ryo:s3cret" {
		t.Fatalf("asked %q", asked)
	}

	other := hostile(t, func(w http.ResponseWriter, r *http.Request) { t.Errorf("the other host was asked %s", r.URL) })
	away := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.String()+"/search", http.StatusFound)
	})
	away.User = url.UserPassword("ryo", "s3cret")
	_, err = websearch.SearxNG{BaseURL: away, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	var e *websearch.Error
	if !errors.As(err, &e) || e.Kind != websearch.Refused || !strings.Contains(e.Detail, "redirects to another host") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v", err)
	}
}

// What a provider writes in a title or snippet reaches the model as plain
// text it can quote: characters that reorder or hide text (a right-to-left
// override that disguises "moc.elppa", zero-width spaces, invisible tag
// characters that smuggle words to the model, control bytes) are taken
// out; joiners that build emoji and words stay. Markup that is only text —
// a Markdown link, an escaped <a> tag, an @mention — stays text: the
// reply's renderer links only web addresses and shows the rest as it is.
func TestHostileTextIsPlain(t *testing.T) {
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[{"url":"https://a.example/",
		"title":"Pay at \u202Emoc.elppa\u202C now\u2066!\u2069",
		"content":"zero\u200Bwidth\uFEFF \u2060joined \u00001b\u001b[31m red \uDB40\uDC69\uDB40\uDC67\uDB40\uDC6Eore family 👨\u200D👩\u200D👧 می\u200Cخواهم [click](tg://user?id=1) &lt;a href=\"tg://user?id=1\"&gt;x&lt;/a&gt; @everyone"}]}`))
	})
	got, err := websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	if want := "Pay at moc.elppa now!"; got[0].Title != want {
		t.Errorf("title = %+q; want %+q", got[0].Title, want)
	}
	if want := `zerowidth joined 1b[31m red ore family 👨‍👩‍👧 می‌خواهم [click](tg://user?id=1) <a href="tg://user?id=1">x</a> @everyone`; got[0].Snippet != want {
		t.Errorf("snippet = %+q\nwant %+q", got[0].Snippet, want)
	}
}

// Answers that are not results fail as Unavailable with a reason, never a
// crash: an HTML error page sent as 200, JSON nested past reason, bytes
// that are not UTF-8 (read as text, with the bad bytes out).
func TestHostileAnswers(t *testing.T) {
	for name, tc := range map[string]struct {
		body   string
		detail string
	}{
		"html page":   {"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>", "not SearxNG's JSON"},
		"deep":        {`{"results":` + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + `}`, "not SearxNG's JSON"},
		"empty":       {"", "not SearxNG's JSON"},
		"results obj": {`{"results":{"url":"https://a.example/"}}`, "not SearxNG's JSON"},
	} {
		base := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tc.body)) })
		_, err := websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
		var e *websearch.Error
		if !errors.As(err, &e) || e.Kind != websearch.Unavailable || !strings.Contains(e.Detail, tc.detail) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("{\"results\":[{\"url\":\"https://a.example/\",\"title\":\"caf\xe9 \xff\xfe\",\"content\":\"Gr\xfc\xdfe\"}]}"))
	})
	got, err := websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if err != nil || len(got) != 1 || got[0].Title != "caf" || got[0].Snippet != "Gre" {
		t.Fatalf("latin-1: %+q, %v", got, err)
	}
}

// Addresses are what they are, in ASCII: a host in another script is
// given in its punycode form, so that a Cyrillic "аpple.com" reads
// xn--pple-43d.com, not apple.com; an address with credentials, or of
// another scheme (javascript:, data:, file:, tg:), is dropped.
func TestHostileAddresses(t *testing.T) {
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[
		{"url":"https://аpple.com/login","title":"Cyrillic a"},
		{"url":"https://xn--pple-43d.com/other","title":"already punycode"},
		{"url":"http://пример.рф:8080/","title":"with a port"},
		{"url":"https://bücher.example/a b\u202Efdp.exe","title":"German"},
		{"url":"https://user:pass@example.com/","title":"credentials"},
		{"url":"javascript:alert(1)","title":"script"},
		{"url":"data:text/html,<script>alert(1)</script>","title":"data"},
		{"url":"file:///etc/passwd","title":"file"},
		{"url":"tg://user?id=1","title":"mention"},
		{"url":"https://%zz/","title":"broken"},
		{"url":"https://-bad-.example\u0000/","title":"nul"}]}`))
	})
	got, err := websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{
		{"https://xn--pple-43d.com/login", "xn--pple-43d.com"},
		{"https://xn--pple-43d.com/other", "xn--pple-43d.com"},
		{"http://xn--e1afmkfd.xn--p1ai:8080/", "xn--e1afmkfd.xn--p1ai"},
		{"https://xn--bcher-kva.example/a%20b%E2%80%AEfdp.exe", "xn--bcher-kva.example"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d results: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].URL != w[0] || got[i].Source != w[1] {
			t.Errorf("result %d: %s from %s; want %s from %s", i, got[i].URL, got[i].Source, w[0], w[1])
		}
	}
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An answer of a million tiny results — under the size bound, three
// megabytes — costs little more memory than its bytes: only the first
// results are read, the rest skipped. The real ones at its head are kept.
func TestManyResultsStayCheap(t *testing.T) {
	head := `{"url":"https://a.example/1","title":"one","description":"d"},{"url":"https://a.example/2","title":"two"},`
	many := strings.Repeat(`{},`, 1_000_000) + `{}`
	for name, body := range map[string]string{
		"searxng": `{"results":[` + head + many + `],"unresponsive_engines":[` + strings.Repeat(`["e","x"],`, 100_000) + `["e","x"]]}`,
		"brave":   `{"type":"search","web":{"type":"search","results":[` + head + many + `]}}`,
	} {
		base := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) })
		var s websearch.Searcher = websearch.SearxNG{BaseURL: base, Timeout: 10 * time.Second}
		if name == "brave" {
			s = websearch.Brave{APIKey: "k", BaseURL: base, Timeout: 10 * time.Second}
		}
		var got []websearch.Result
		var err error
		bytes := allocated(func() { got, err = s.Search(context.Background(), websearch.Query{Text: "q", Count: 5}) })
		if err != nil || len(got) != 2 || got[1].Title != "two" {
			t.Fatalf("%s: got %+v, %v", name, got, err)
		}
		if bytes > 64<<20 {
			t.Errorf("%s: reading a %d-byte answer allocated %d MB", name, len(body), bytes>>20)
		}
		if testing.Verbose() {
			t.Logf("%s: a %d-byte answer allocated %d MB", name, len(body), bytes>>20)
		}
	}
}

// A compressed answer is read; one that inflates past the size bound is
// refused when the bound is reached, not after it is all in memory.
func TestCompressedAnswers(t *testing.T) {
	compress := func(s string) []byte {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write([]byte(s))
		z.Close()
		return b.Bytes()
	}
	small := compress(`{"results":[{"url":"https://a.example/","title":"zipped"}]}`)
	bomb := compress(`{"results":[` + strings.Repeat(" ", 16<<20) + `]}`)
	for name, body := range map[string][]byte{"small": small, "bomb": bomb} {
		base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				t.Errorf("asked without gzip: %v", r.Header)
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(body)
		})
		var got []websearch.Result
		var err error
		n := allocated(func() {
			got, err = websearch.SearxNG{BaseURL: base, Timeout: 10 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
		})
		var e *websearch.Error
		switch {
		case name == "small" && (err != nil || len(got) != 1 || got[0].Title != "zipped"):
			t.Errorf("small: %+v, %v", got, err)
		case name == "bomb" && (!errors.As(err, &e) || e.Kind != websearch.Unavailable || !strings.Contains(e.Detail, "larger than 4 MB")):
			t.Errorf("bomb: %v", err)
		case n > 64<<20:
			t.Errorf("%s: allocated %d MB", name, n>>20)
		}
	}
}

// A provider that sends its headers and the start of a body, then
// nothing more, never holds a search past its deadline.
func TestSlowLorisProvider(t *testing.T) {
	stop := make(chan struct{})
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[`))
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	})
	defer close(stop)
	start := time.Now()
	_, err := websearch.SearxNG{BaseURL: base, Timeout: 200 * time.Millisecond}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	var e *websearch.Error
	if !errors.As(err, &e) || e.Kind != websearch.Unavailable || !strings.Contains(e.Detail, "no answer in time") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

// A result of another shape (a title or a date that is a number, a result
// that is a string) is skipped; the others are kept, where before the
// whole answer was lost.
func TestOneOddResultLosesNothing(t *testing.T) {
	base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[{"url":"https://a.example/1","title":5},"text",null,{"url":"https://a.example/2","title":"kept","publishedDate":7}, {"url":"https://a.example/3","title":"also kept"}]}`))
	})
	got, err := websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
	if err != nil || len(got) != 1 || got[0].Title != "also kept" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// A provider (or a proxy before it) that repeats the key in its error —
// "invalid token BSA…" — does not put the key in ryo's error, which is
// logged and shown to the model.
func TestBraveEchoedKeyIsNotRepeated(t *testing.T) {
	const key = "BSAechoedkey0123456789"
	for _, status := range []int{http.StatusUnprocessableEntity, http.StatusTooManyRequests, http.StatusBadGateway} {
		base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The token ` + r.Header.Get("X-Subscription-Token") + ` is not valid","status":422}}`))
		})
		_, err := websearch.Brave{APIKey: key, BaseURL: base, Timeout: 5 * time.Second}.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "The token [key] is not valid") {
			t.Errorf("%d: err = %v", status, err)
		}
	}
}

// A wait a provider names past any quota's month — Retry-After of a
// hundred billion seconds, a reset in the year 9999 — is not believed
// (it overflowed to centuries, or to a negative wait): the wait is
// unknown. A month is believed.
func TestAbsurdWaits(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		want          time.Duration
	}{
		{"Retry-After", "99999999999", 0},
		{"Retry-After", "18446744073", 0},
		{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT", 0},
		{"X-RateLimit-Reset", "1, 99999999999999", 0},
		{"X-RateLimit-Reset", "1, 2678400", 31 * 24 * time.Hour},
	} {
		base := hostile(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(tc.header, tc.value)
			w.Header().Set("X-RateLimit-Remaining", "1, 0")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		searchers := []websearch.Searcher{websearch.Brave{APIKey: "k", BaseURL: base, Timeout: 5 * time.Second}}
		if tc.header == "Retry-After" {
			searchers = append(searchers, websearch.SearxNG{BaseURL: base, Timeout: 5 * time.Second})
		}
		for _, s := range searchers {
			_, err := s.Search(context.Background(), websearch.Query{Text: "q", Count: 5})
			var e *websearch.Error
			if !errors.As(err, &e) || e.Kind != websearch.RateLimited || e.RetryAfter != tc.want {
				t.Errorf("%s: %s: %v", tc.header, tc.value, err)
			}
		}
	}
}
