package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

const petstoreKey = "special-key"

// seen is one request as it arrived on the wire.
type seen struct {
	Method, URI, ContentType, Key, Body string
}

// petstore is a real HTTP server for the fixture's operations, answering
// as the Petstore does. Some pet ids misbehave on purpose: 404 is not
// found, 500 fails with an HTML page, 401 quotes the key it refuses, 7
// never answers, 8 answers far too much, 9 answers broken JSON, 301
// redirects to another host.
type petstore struct {
	srv      *httptest.Server
	other    *httptest.Server // the other host redirects go to
	mu       sync.Mutex
	requests []seen
	hung     chan struct{} // one value per hanging request given up by the client
}

func newPetstore(t *testing.T) *petstore {
	p := &petstore{hung: make(chan struct{}, 32)}
	p.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request reached the other host: %s %s", r.Method, r.RequestURI)
	}))
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() { p.srv.Close(); p.other.Close() })
	return p
}

func (p *petstore) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.requests = append(p.requests, seen{r.Method, r.RequestURI, r.Header.Get("Content-Type"), r.Header.Get("api_key"), string(body)})
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/v3/pet/404":
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":1,"type":"error","message":"Pet not found"}`)
	case "/api/v3/pet/500":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<html><head><title>Error</title></head><body><h1>Internal Server Error</h1>\n<p>"+strings.Repeat("stack ", 2000)+"</p></body></html>")
	case "/api/v3/pet/401":
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"API key `+r.Header.Get("api_key")+` is not valid"}}`)
	case "/api/v3/pet/7":
		<-r.Context().Done()
		p.hung <- struct{}{}
	case "/api/v3/pet/8":
		io.WriteString(w, "[")
		for i := range 5000 {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"id":%d,"name":"doggie %d","photoUrls":[],"status":"available"}`, i, i)
		}
		io.WriteString(w, "]")
	case "/api/v3/pet/9":
		io.WriteString(w, `{"id":9,"name":"doggie","photoUrls":[`)
	case "/api/v3/pet/301":
		http.Redirect(w, r, p.other.URL+"/api/v3/pet/1", http.StatusMovedPermanently)
	case "/api/v3/pet/302":
		http.Redirect(w, r, "/api/v3/pet/10", http.StatusFound)
	case "/api/v3/pet/findByStatus", "/api/v3/pet/findByTags":
		io.WriteString(w, `[{"id":10,"name":"doggie","category":{"id":1,"name":"Dogs"},"photoUrls":["string"],"tags":[{"id":0,"name":"string"}],"status":"sold"}]`)
	case "/api/v3/user/login":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "Logged in user session: 5936201412497316101")
	case "/api/v3/pet/10/gone":
		w.WriteHeader(http.StatusNoContent)
	default:
		if r.Method == http.MethodDelete {
			io.WriteString(w, `"Pet deleted"`)
			return
		}
		io.WriteString(w, `{"id":10,"name":"doggie","category":{"id":1,"name":"Dogs"},"photoUrls":["string"],"tags":[{"id":0,"name":"string"}],"status":"available"}`)
	}
}

func (p *petstore) seen() []seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seen(nil), p.requests...)
}

func (p *petstore) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}

// registry generates the fixture's tools against the server, found
// through the document's relative server URL, and registers them.
func (p *petstore) registry(t *testing.T, overrides map[string]openapi.Override) *toolbus.Registry {
	t.Helper()
	api := load(t, fixtures[0])
	api.DocumentURL = p.srv.URL + "/api/v3/openapi.json"
	api.Overrides = overrides
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

func run(reg *toolbus.Registry, tool, args string) toolbus.Result {
	return reg.Run(context.Background(), toolbus.Call{ID: "c1", Key: tool + args, Tool: tool, Args: json.RawMessage(args), Confirmed: true})
}

// TestRequestsOnTheWire: for each operation, the request the server
// receives is the one the document specifies, written out here by hand
// from the document and OpenAPI's serialization rules.
func TestRequestsOnTheWire(t *testing.T) {
	p := newPetstore(t)
	reg := p.registry(t, nil)
	for _, tc := range []struct {
		tool, args string
		want       seen
	}{
		{"petstore_get_pet_by_id", `{"petId":10}`,
			seen{Method: "GET", URI: "/api/v3/pet/10", Key: petstoreKey}},
		{"petstore_find_pets_by_status", `{"status":"sold"}`,
			seen{Method: "GET", URI: "/api/v3/pet/findByStatus?status=sold", Key: petstoreKey}},
		// form, explode: one pair per item; the space and the & escaped.
		{"petstore_find_pets_by_tags", `{"tags":["tag 1","a&b"]}`,
			seen{Method: "GET", URI: "/api/v3/pet/findByTags?tags=tag%201&tags=a%26b", Key: petstoreKey}},
		// The body as the model wrote it, digits and order kept.
		{"petstore_add_pet", `{"body":{"name":"doggie","photoUrls":["https://img.example/1.jpg"],"id":9007199254740993,"status":"available"}}`,
			seen{Method: "POST", URI: "/api/v3/pet", ContentType: "application/json", Key: petstoreKey,
				Body: `{"name":"doggie","photoUrls":["https://img.example/1.jpg"],"id":9007199254740993,"status":"available"}`}},
		// Query parameters in the document's order, whatever the arguments'.
		{"petstore_update_pet_with_form", `{"status":"sold","petId":10,"name":"Rex Junior"}`,
			seen{Method: "POST", URI: "/api/v3/pet/10?name=Rex%20Junior&status=sold", Key: petstoreKey}},
		{"petstore_delete_pet", `{"petId":10}`,
			seen{Method: "DELETE", URI: "/api/v3/pet/10", Key: petstoreKey}},
		// A path parameter stays one segment: / and space escaped.
		{"petstore_get_user_by_name", `{"username":"a/b c"}`,
			seen{Method: "GET", URI: "/api/v3/user/a%2Fb%20c", Key: petstoreKey}},
		{"petstore_login_user", `{"username":"user1","password":"p@ss/word?"}`,
			seen{Method: "GET", URI: "/api/v3/user/login?username=user1&password=p%40ss%2Fword%3F", Key: petstoreKey}},
		// The JSON body of an operation that offers JSON, XML and a form.
		{"petstore_place_order", `{"body":{"petId":198772,"quantity":7,"status":"approved"}}`,
			seen{Method: "POST", URI: "/api/v3/store/order", ContentType: "application/json", Key: petstoreKey,
				Body: `{"petId":198772,"quantity":7,"status":"approved"}`}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			p.reset()
			res := run(reg, tc.tool, tc.args)
			if res.Status != toolbus.StatusOK {
				t.Fatalf("status %s: %+v", res.Status, res.Error)
			}
			got := p.seen()
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("on the wire:\n got %+v\nwant %+v", got, tc.want)
			}
			if !json.Valid(res.Output) {
				t.Fatalf("result is not JSON: %s", res.Output)
			}
		})
	}
}

// TestResultsReachTheModel: the API's JSON is the result as it is; a text
// answer is wrapped.
func TestResultsReachTheModel(t *testing.T) {
	p := newPetstore(t)
	reg := p.registry(t, nil)
	res := run(reg, "petstore_get_pet_by_id", `{"petId":10}`)
	var pet struct {
		Name     string                `json:"name"`
		Category struct{ Name string } `json:"category"`
	}
	if err := json.Unmarshal(res.Output, &pet); err != nil || pet.Name != "doggie" || pet.Category.Name != "Dogs" {
		t.Fatalf("result %s (%v)", res.Output, err)
	}
	res = run(reg, "petstore_login_user", `{"username":"user1","password":"x"}`)
	if got := string(res.Output); got != `{"content_type":"text/plain","text":"Logged in user session: 5936201412497316101"}` {
		t.Fatalf("text result %s", got)
	}
}

// TestBadArgumentsNeverReachTheAPI: what the schema refuses, and what
// the document's maxItems refuses (kept out of the model's schema), is
// refused before any request.
func TestBadArgumentsNeverReachTheAPI(t *testing.T) {
	p := newPetstore(t)
	reg := p.registry(t, nil)
	for _, tc := range []struct{ tool, args string }{
		{"petstore_get_pet_by_id", `{"petId":"ten"}`},
		{"petstore_get_pet_by_id", `{}`},
		{"petstore_find_pets_by_status", `{"status":"lost"}`},
		{"petstore_add_pet", `{"body":{"name":"doggie"}}`},
		{"petstore_add_pet", `{"body":{"name":"doggie","photoUrls":[],"owner":"me"}}`},
		{"petstore_find_pets_by_tags", `{"tags":["a","b","c","d","e","f"]}`}, // maxItems 5
	} {
		res := run(reg, tc.tool, tc.args)
		if res.Status != toolbus.StatusError || res.Error.Code != toolbus.CodeInvalidArgs {
			t.Errorf("%s %s: %s %+v, want invalid_arguments", tc.tool, tc.args, res.Status, res.Error)
		}
	}
	if got := p.seen(); len(got) != 0 {
		t.Fatalf("requests reached the API: %+v", got)
	}
}

// TestFailuresAreShortStructuredErrors: 404, 500, a timeout, an oversized
// and a broken answer, a refused key and a redirect to another host each
// give the model something short it can act on, and never the key.
func TestFailuresAreShortStructuredErrors(t *testing.T) {
	p := newPetstore(t)
	reg := p.registry(t, map[string]openapi.Override{"getPetById": {Timeout: 300 * time.Millisecond}})
	for _, tc := range []struct {
		petID, code, says string
	}{
		{"404", "http_404", "GET /pet/{petId} answered 404 Not Found: Pet not found."},
		{"500", "http_500", "GET /pet/{petId} answered 500 Internal Server Error: Internal Server Error. The API failed; try again later."},
		{"401", "http_401", "API key [redacted] is not valid"},
		{"7", toolbus.CodeTimeout, "did not"},
		{"9", "bad_response", "petstore answered with JSON that cannot be read"},
		{"301", "redirect_refused", "redirect to another host"},
	} {
		t.Run(tc.petID, func(t *testing.T) {
			res := run(reg, "petstore_get_pet_by_id", `{"petId":`+tc.petID+`}`)
			if res.Status != toolbus.StatusError || res.Error.Code != tc.code {
				t.Fatalf("%s %+v, want %s", res.Status, res.Error, tc.code)
			}
			if !strings.Contains(res.Error.Message, tc.says) {
				t.Errorf("message %q does not say %q", res.Error.Message, tc.says)
			}
			if len(res.Error.Message) > 400 {
				t.Errorf("message is %d bytes long", len(res.Error.Message))
			}
			if strings.Contains(res.Error.Message, petstoreKey) || strings.Contains(res.Error.Message, p.srv.URL) {
				t.Errorf("message leaks the key or the URL: %q", res.Error.Message)
			}
		})
	}
	t.Run("oversized", func(t *testing.T) {
		res := run(reg, "petstore_get_pet_by_id", `{"petId":8}`)
		if res.Status != toolbus.StatusOK || res.Truncated {
			t.Fatalf("%s truncated=%v %+v", res.Status, res.Truncated, res.Error)
		}
		var out struct {
			Truncated string
			Partial   []struct{ ID int }
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatalf("cut result is not JSON: %v", err)
		}
		if !strings.Contains(out.Truncated, "longer than 65536 bytes") || len(out.Partial) < 100 || out.Partial[len(out.Partial)-1].ID != len(out.Partial)-1 {
			t.Fatalf("cut result: %q with %d whole items", out.Truncated, len(out.Partial))
		}
		if len(res.Output) > openapi.MaxResult {
			t.Fatalf("result is %d bytes", len(res.Output))
		}
	})
	t.Run("same-host redirect", func(t *testing.T) {
		res := run(reg, "petstore_get_pet_by_id", `{"petId":302}`)
		if res.Status != toolbus.StatusOK {
			t.Fatalf("%s %+v", res.Status, res.Error)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		api := load(t, fixtures[0])
		api.BaseURL = closed.URL + "/api/v3"
		cat, err := openapi.Generate(api)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range cat.Tools {
			if tool.Spec.Name != "petstore_get_pet_by_id" {
				continue
			}
			_, err := tool.Spec.Tool.Call(context.Background(), json.RawMessage(`{"petId":1}`))
			var te *toolbus.Error
			if !asToolError(err, &te) || te.Code != openapi.CodeUnavailable || strings.Contains(te.Message, closed.URL) {
				t.Fatalf("error %v", err)
			}
			return
		}
		t.Fatal("no tool")
	})
}

func asToolError(err error, te **toolbus.Error) bool {
	e, ok := err.(*toolbus.Error)
	*te = e
	return ok
}

// TestTenCallsAtOnce: ten calls across the registry at once, five to an
// endpoint that never answers: those five end at their deadline (the
// server sees each request given up), the other five succeed.
func TestTenCallsAtOnce(t *testing.T) {
	p := newPetstore(t)
	reg := p.registry(t, map[string]openapi.Override{"getPetById": {Timeout: 500 * time.Millisecond}})
	results := make([]toolbus.Result, 10)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			id := 10
			if i%2 == 0 {
				id = 7
			}
			results[i] = reg.Run(context.Background(), toolbus.Call{
				ID: fmt.Sprint("c", i), Key: fmt.Sprint("k", i), Tool: "petstore_get_pet_by_id",
				Args: json.RawMessage(fmt.Sprintf(`{"petId":%d}`, id)),
			})
		})
	}
	wg.Wait()
	for i, res := range results {
		want := toolbus.StatusOK
		if i%2 == 0 {
			want = toolbus.StatusError
			if res.Error == nil || res.Error.Code != toolbus.CodeTimeout {
				t.Errorf("call %d: %+v, want a timeout", i, res.Error)
			}
		}
		if res.Status != want {
			t.Errorf("call %d: %s, want %s", i, res.Status, want)
		}
	}
	// Each hanging request was given up on the wire: read-only calls are
	// tried twice, so at least five.
	for range 5 {
		<-p.hung
	}
}
