package openapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

// wire is a server that records each request's raw URI and answers with
// what answer gives.
func wire(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var uris []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.RequestURI)
		mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), uris...) }
}

func registryOf(t *testing.T, api openapi.API) *toolbus.Registry {
	t.Helper()
	cat, err := openapi.Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	reg := toolbus.NewRegistry()
	for _, s := range cat.Specs() {
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

const accountsDoc = `
openapi: 3.0.3
info: {title: Accounts, version: '1'}
paths:
  /accounts/{id}/statement:
    get:
      operationId: getStatement
      summary: Gets an account's statement.
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {'200': {description: OK}}
`

// TestPathArgumentsStayInTheirSegment: a path argument of "." or ".."
// would be read by any server or proxy on the way as a step up the path
// (RFC 3986 5.2.4), so that /accounts/{id}/statement with id ".." calls
// /statement. It is refused before any request.
func TestPathArgumentsStayInTheirSegment(t *testing.T) {
	srv, uris := wire(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	reg := registryOf(t, openapi.API{Name: "accounts", Document: []byte(accountsDoc), BaseURL: srv.URL + "/v1"})
	for _, id := range []string{"..", ".", "../..", "a/../b"} {
		res := run(reg, "accounts_get_statement", `{"id":"`+id+`"}`)
		for _, u := range uris() {
			if strings.Contains(u, "/../") || strings.Contains(u, "/./") || strings.HasSuffix(u, "/..") {
				t.Fatalf("id %q went out as %s (%s %+v)", id, u, res.Status, res.Error)
			}
		}
		if (id == "." || id == "..") && (res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs) {
			t.Errorf("id %q: %s %+v, want invalid_arguments", id, res.Status, res.Error)
		}
	}
}

// TestEchoedKeyIsRedactedInEveryEncoding: an API that quotes the key it
// was sent, as JSON encoders write it (PHP escapes "/" as "\/", others
// write any character as \uXXXX), or only the token of an
// "Authorization: Bearer <token>" value, has it redacted from results
// and errors alike.
func TestEchoedKeyIsRedactedInEveryEncoding(t *testing.T) {
	const key = "q1w2/e3r4+t5y6=="
	srv, _ := wire(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		status := http.StatusOK
		if strings.Contains(r.URL.Path, "-401") {
			status = http.StatusUnauthorized
		}
		w.WriteHeader(status)
		switch {
		case strings.Contains(r.URL.Path, "slash"):
			io.WriteString(w, `{"message":"key `+strings.ReplaceAll(got, "/", `\/`)+` refused"}`)
		case strings.Contains(r.URL.Path, "unicode"):
			io.WriteString(w, `{"message":"key `+strings.ReplaceAll(got, "q", `\u0071`)+` refused"}`)
		default:
			io.WriteString(w, `{"message":"token `+got+` refused"}`)
		}
	})
	for _, value := range []string{key, "Bearer " + key} {
		reg := registryOf(t, openapi.API{Name: "accounts", Document: []byte(accountsDoc), BaseURL: srv.URL,
			Auth: openapi.Auth{In: openapi.InHeader, Name: "Authorization", Value: ryo.Secret(value)}})
		for _, id := range []string{"slash", "unicode", "plain", "slash-401", "unicode-401", "plain-401"} {
			res := run(reg, "accounts_get_statement", `{"id":"`+id+`"}`)
			out := string(res.Output)
			if res.Error != nil {
				out += res.Error.Message
			}
			var decoded any
			json.Unmarshal(res.Output, &decoded)
			if strings.Contains(out, key) || strings.Contains(fmt.Sprint(decoded), key) || strings.Contains(out, `q1w2\/e3r4`) || strings.Contains(out, `\u0071`) {
				t.Errorf("value %q, %s: the key reaches the model: %s", value[:6], id, out)
			}
		}
	}
}

// TestRedirectsStayOnTheOrigin: a redirect to the same host name on
// another port reaches another service, whatever the scheme: it is
// refused, and the key does not reach it. (The https service here is
// trusted by the client, as a real certificate would be.)
func TestRedirectsStayOnTheOrigin(t *testing.T) {
	var reached []string
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = append(reached, r.RequestURI+" key="+r.Header.Get("X-Api-Key"))
		io.WriteString(w, `{"admin":true}`)
	}))
	defer other.Close()
	otherPlain := httptest.NewServer(other.Config.Handler)
	defer otherPlain.Close()
	srv, _ := wire(t, func(w http.ResponseWriter, r *http.Request) {
		to := other.URL
		if strings.Contains(r.URL.Path, "plain") {
			to = otherPlain.URL
		}
		http.Redirect(w, r, to+"/internal", http.StatusFound)
	})
	reg := registryOf(t, openapi.API{Name: "accounts", Document: []byte(accountsDoc), BaseURL: srv.URL,
		Client: other.Client(), Auth: openapi.Auth{In: openapi.InHeader, Name: "X-Api-Key", Value: "k-9f8e7d6c"}})
	for _, id := range []string{"tls", "plain"} {
		res := run(reg, "accounts_get_statement", `{"id":"`+id+`"}`)
		if res.Error == nil || res.Error.Code != openapi.CodeRedirect {
			t.Errorf("%s: %s %+v, want redirect_refused", id, res.Status, res.Error)
		}
	}
	if len(reached) > 0 {
		t.Fatalf("the other port was reached: %v", reached)
	}
}

// TestArgumentsNeverChangeTheHost: a document whose path does not start
// with "/" ("{region}/data") would put the argument right after the
// server's host: ".attacker.example" would call another host. Every
// request goes to the server's host.
func TestArgumentsNeverChangeTheHost(t *testing.T) {
	const doc = `
openapi: 3.0.3
info: {title: Regions, version: '1'}
paths:
  '{region}/data':
    get:
      operationId: getData
      summary: Gets a region's data.
      parameters:
        - {name: region, in: path, required: true, schema: {type: string}}
      responses: {'200': {description: OK}}
`
	var hosts []string
	client := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		hosts = append(hosts, r.URL.Host)
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{}`)), Request: r}, nil
	})}
	cat, err := openapi.Generate(openapi.API{Name: "regions", Document: []byte(doc), BaseURL: "https://api.example.com", Client: client})
	if err != nil {
		t.Fatal(err)
	}
	reg := toolbus.NewRegistry()
	for _, s := range cat.Specs() {
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	run(reg, "regions_get_data", `{"region":".attacker.example"}`)
	for _, h := range hosts {
		if h != "api.example.com" {
			t.Fatalf("a request went to %s", h)
		}
	}
}

// TestResultsAreUTF8: JSON must be UTF-8 (RFC 8259 section 8.1); an API
// that answers Latin-1 bytes in its JSON strings gives a result whose
// bad bytes are replaced, so that whatever reads it next can.
func TestResultsAreUTF8(t *testing.T) {
	srv, _ := wire(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{\"city\":\"S\xe3o Paulo\",\"n\":1}")
	})
	reg := registryOf(t, openapi.API{Name: "accounts", Document: []byte(accountsDoc), BaseURL: srv.URL})
	res := run(reg, "accounts_get_statement", `{"id":"1"}`)
	if res.Status != toolbus.StatusOK || !utf8.Valid(res.Output) || string(res.Output) != "{\"city\":\"S\ufffdo Paulo\",\"n\":1}" {
		t.Fatalf("%s %q %+v", res.Status, res.Output, res.Error)
	}
}
