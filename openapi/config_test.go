package openapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo/openapi"
	"github.com/ryo-bot/ryo/toolbus"
)

func names(cat openapi.Catalog) []string {
	var out []string
	for _, t := range cat.Tools {
		out = append(out, t.Spec.Name)
	}
	return out
}

func tool(t *testing.T, cat openapi.Catalog, name string) toolbus.Spec {
	t.Helper()
	for _, g := range cat.Tools {
		if g.Spec.Name == name {
			return g.Spec
		}
	}
	t.Fatalf("no tool %s among %v", name, names(cat))
	return toolbus.Spec{}
}

// TestOverrides: an override gives a description to an operation the
// lint refused, changes an effect, a deadline and an example; the allow
// and deny lists name operations by operationId, tool name or method and
// path, and what they leave out is reported.
func TestOverrides(t *testing.T) {
	weather := load(t, fixtures[1])
	weather.Overrides = map[string]openapi.Override{
		"GET /v1/elevation": {Description: "Get the elevation of up to 100 coordinates, in metres."},
		"get_forecast": {
			Example:  json.RawMessage(`{"latitude":38.72,"longitude":-9.14,"daily":["temperature_2m_max"],"timezone":"Europe/Lisbon"}`),
			Question: "What's the weather in Lisbon tomorrow?",
		},
	}
	cat, err := openapi.Generate(weather)
	if err != nil {
		t.Fatal(err)
	}
	elevation := tool(t, cat, "weather_get_elevation")
	if elevation.Description != "Get the elevation of up to 100 coordinates, in metres." {
		t.Errorf("description %q", elevation.Description)
	}
	if !strings.Contains(string(elevation.Schema), "At most 100 items.") {
		t.Errorf("the bound maxItems set is not in the description: %s", elevation.Schema)
	}
	forecast := tool(t, cat, "weather_get_forecast")
	if q := forecast.Examples[0].Question; q != "What's the weather in Lisbon tomorrow?" {
		t.Errorf("question %q", q)
	}

	destructive := toolbus.Destructive
	pets := load(t, fixtures[0])
	pets.Allow = []string{"getPetById", "petstore_delete_pet", "POST /pet", "update_pet"}
	pets.Deny = []string{"PUT /pet"}
	pets.Overrides = map[string]openapi.Override{
		"addPet":     {Effect: &destructive, Timeout: 3e9},
		"getPetById": {Example: json.RawMessage(`{"petId":"ten"}`)},
	}
	cat, err = openapi.Generate(pets)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(cat), " "); got != "petstore_add_pet petstore_delete_pet" {
		t.Errorf("tools %s", got)
	}
	add := tool(t, cat, "petstore_add_pet")
	if add.Effect != toolbus.Destructive || add.Timeout != 3e9 {
		t.Errorf("add_pet: effect %s, timeout %v", add.Effect, add.Timeout)
	}
	reasons := map[string]string{}
	for _, s := range cat.Skipped {
		reasons[s.Name] = s.Reason
	}
	for name, want := range map[string]string{
		"petstore_update_pet":    "in the deny list",
		"petstore_login_user":    "not in the allow list",
		"petstore_get_pet_by_id": "the example in the overrides does not fit the schema",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s skipped for %q, want %q", name, reasons[name], want)
		}
	}
}

// TestPathLevelServers: each Open-Meteo-like path goes to the host its
// own servers name. The requests are carried to a local server by the
// client's transport, which records the host each was meant for.
func TestPathLevelServers(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"latitude":38.72,"longitude":-9.14,"daily":{"time":["2026-11-27"],"temperature_2m_max":[19.4]}}`)
	}))
	defer srv.Close()
	api := load(t, fixtures[1])
	api.Client = &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		got = append(got, r.URL.Scheme+"://"+r.URL.Host+r.URL.RequestURI())
		mu.Unlock()
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(srv.URL, "http://")
		return http.DefaultTransport.RoundTrip(r)
	})}
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
	for _, tc := range []struct{ tool, args string }{
		{"weather_get_forecast", `{"latitude":38.72,"longitude":-9.14,"daily":["temperature_2m_max","precipitation_sum"],"timezone":"Europe/Lisbon","forecast_days":2}`},
		{"weather_get_marine", `{"latitude":38.7,"longitude":-9.4,"hourly":["wave_height"]}`},
		{"weather_get_search", `{"name":"Lisboa","count":1}`},
	} {
		if res := run(reg, tc.tool, tc.args); res.Status != toolbus.StatusOK {
			t.Fatalf("%s: %s %+v", tc.tool, res.Status, res.Error)
		}
	}
	want := []string{
		"https://api.open-meteo.com/v1/forecast?daily=temperature_2m_max,precipitation_sum&latitude=38.72&longitude=-9.14&timezone=Europe%2FLisbon&forecast_days=2",
		"https://marine-api.open-meteo.com/v1/marine?latitude=38.7&longitude=-9.4&hourly=wave_height",
		"https://geocoding-api.open-meteo.com/v1/search?name=Lisboa&count=1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestStylesOnTheWire: the constructs fixture's deepObject,
// pipeDelimited, spaceDelimited, header and JSON-content parameters, and
// its label path parameter, as a server receives them.
func TestStylesOnTheWire(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.RequestURI+" X-Trace="+r.Header.Get("X-Trace"))
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	api := load(t, fixtures[3])
	api.BaseURL = srv.URL + "/api"
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
	for _, tc := range []struct{ tool, args string }{
		{"constructs_list_things", `{"filter":{"color":"dark red","size":2},"ids":[1,2,3],"words":["a","b c"],"X-Trace":"t1","where":{"near":"Lisbon"}}`},
		{"constructs_get_thing", `{"id":"a.b"}`},
		{"constructs_get_mixed", `{"value":42,"maybe":null}`},
	} {
		if res := run(reg, tc.tool, tc.args); res.Status != toolbus.StatusOK {
			t.Fatalf("%s: %s %+v", tc.tool, res.Status, res.Error)
		}
	}
	want := []string{
		// spaceDelimited cannot tell ["a","b c"] from ["a","b","c"]:
		// the style's own ambiguity, sent as the specification says.
		"GET /api/things?filter%5Bcolor%5D=dark%20red&filter%5Bsize%5D=2&ids=1|2|3&words=a%20b%20c&where=%7B%22near%22%3A%22Lisbon%22%7D X-Trace=t1",
		"GET /api/things/.a.b X-Trace=",
		"GET /api/mixed?value=42 X-Trace=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMessyDocuments: small documents with the mistakes real ones make.
func TestMessyDocuments(t *testing.T) {
	const doc = `
openapi: 3.0.3
info: {title: Messy, version: '1'}
servers: [{url: 'https://messy.example'}]
paths:
  /items/{id}:
    get:
      operationId: getItem
      summary: Gets an item.
      responses: {'200': {description: OK}}
  /search:
    get:
      operationId: search
      summary: Searches items.
      parameters:
        - {name: apikey, in: query, required: true, schema: {type: string}}
        - {name: q, in: query, required: true, schema: {type: integer, example: ten}}
        - {name: 'X Bad Header', in: header, schema: {type: string}}
        - {name: X-Note, in: header, schema: {type: string}}
      responses: {'200': {description: OK}}
`
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.RequestURI)
		io.WriteString(w, `{"items":[]}`)
	}))
	defer srv.Close()
	cat, err := openapi.Generate(openapi.API{Name: "Messy", Document: []byte(doc), BaseURL: srv.URL,
		Auth: openapi.Auth{In: openapi.InQuery, Name: "apikey", Value: "s3cr3t&key"}})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, s := range cat.Skipped {
		reasons[s.Name+" "+s.Argument] = s.Reason
	}
	if r := reasons["messy_get_item "]; !strings.Contains(r, "names {id}, which no path parameter describes") {
		t.Errorf("getItem: %q", r)
	}
	if r := reasons["messy_search X Bad Header"]; !strings.Contains(r, "not a valid header name") {
		t.Errorf("bad header: %q", r)
	}
	search := tool(t, cat, "messy_search")
	if strings.Contains(string(search.Schema), "apikey") {
		t.Errorf("the credential's parameter is in the schema: %s", search.Schema)
	}
	if ex := string(search.Examples[0].Arguments); ex != `{"q":1}` {
		t.Errorf("example %s: the document's own example does not fit, so one made from the schema", ex)
	}
	reg := toolbus.NewRegistry()
	if err := reg.Register(search); err != nil {
		t.Fatal(err)
	}
	if res := run(reg, "messy_search", `{"q":3,"X-Note":"a\r\nX-Injected: 1"}`); res.Error == nil || res.Error.Code != toolbus.CodeInvalidArgs {
		t.Errorf("a header with a line break: %s %+v", res.Status, res.Error)
	}
	res := run(reg, "messy_search", `{"q":3}`)
	if res.Status != toolbus.StatusOK || strings.Join(got, " ") != "/search?q=3&apikey=s3cr3t%26key" {
		t.Fatalf("%s %+v, requests %v", res.Status, res.Error, got)
	}
	if _, err := openapi.Generate(openapi.API{Document: []byte(doc)}); err == nil {
		t.Error("an API without a name was accepted")
	}
}
