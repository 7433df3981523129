package websearch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
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
