package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/toolbus"
)

// weatherAPIv2 is the weather document a release later: the forecast is
// hourly now, the radar is gone, and air quality is new.
var weatherAPIv2 = strings.NewReplacer(
	"summary: Get the daily weather forecast for coordinates.", "summary: Get the hourly weather forecast for coordinates.",
	`  /v1/radar:
    get:
      summary: Get the current rain radar summary.
`, `  /v1/air-quality:
    get:
      summary: Get the current air quality index.
`).Replace(weatherAPI)

// docServer serves an OpenAPI document as a web server does: with an
// ETag and a Last-Modified, answering 304 to a request that names them.
type docServer struct {
	*httptest.Server
	mu       sync.Mutex
	doc      string
	etag     string
	modified string
	down     bool
	asked    []string // each request's If-None-Match
	answered []int
}

func newDocServer(t *testing.T, doc, etag string) *docServer {
	d := &docServer{doc: doc, etag: etag, modified: "Tue, 24 Nov 2026 09:00:00 GMT"}
	d.Server = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.Close)
	return d
}

func (d *docServer) serve(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, r.Header.Get("If-None-Match"))
	status := http.StatusOK
	switch {
	case d.down:
		status = http.StatusServiceUnavailable
	case r.Header.Get("If-None-Match") == d.etag:
		status = http.StatusNotModified
	}
	d.answered = append(d.answered, status)
	if status != http.StatusServiceUnavailable {
		w.Header().Set("ETag", d.etag)
		w.Header().Set("Last-Modified", d.modified)
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.WriteHeader(status)
	if status == http.StatusOK {
		w.Write([]byte(d.doc))
	}
}

func (d *docServer) publish(doc, etag, modified string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.doc, d.etag, d.modified = doc, etag, modified
}

func (d *docServer) setDown(down bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = down
}

func (d *docServer) requests() ([]string, []int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.asked), slices.Clone(d.answered)
}

func toolNames(r *toolbus.Registry) []string {
	var names []string
	for _, s := range r.Specs() {
		names = append(names, s.Name)
	}
	return names
}

// registryOf registers what load made, as main does.
func registryOf(t *testing.T, loaded []loadedAPI) *toolbus.Registry {
	r := toolbus.NewRegistry()
	for _, l := range loaded {
		for _, s := range l.Catalog.Specs() {
			if err := r.Register(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

// Every hour the document is asked for with its ETag: a 304 changes
// nothing; a changed document replaces the API's tools, the log naming
// what was added, removed and changed, and is kept for the next start.
func TestAPIRefresh(t *testing.T) {
	db := memorytest.Open(t)
	docs := newDocServer(t, weatherAPI, `"wx-1"`)
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := clocktest.New(start)
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := newAPISync([]APIConfig{{Name: "weather", Document: docs.URL + "/openapi.yaml"}}, db, clock, time.Hour, log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	loaded := s.load(ctx)
	if loaded[0].Err != nil {
		t.Fatal(loaded[0].Err)
	}
	reg := registryOf(t, loaded)
	s.use(reg)
	before := toolNames(reg)
	if !slices.Equal(before, []string{"weather_create_alert", "weather_get_forecast", "weather_get_radar", "weather_get_stations_by_station"}) {
		t.Fatalf("tools at start: %v", before)
	}
	done := make(chan struct{})
	runCtx, stop := context.WithCancel(ctx)
	go func() { s.run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	hour := func(n int) {
		t.Helper()
		if err := clock.WaitArmed(ctx, start.Add(time.Duration(n)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		if err := clock.WaitArmed(ctx, start.Add(time.Duration(n+1)*time.Hour)); err != nil { // the refresh is over
			t.Fatal(err)
		}
	}
	hour(1)
	asked, answered := docs.requests()
	if !slices.Equal(asked, []string{"", `"wx-1"`}) || !slices.Equal(answered, []int{200, 304}) {
		t.Fatalf("asked %q, answered %v; want the ETag asked for and a 304", asked, answered)
	}
	if got := toolNames(reg); !slices.Equal(got, before) || strings.Contains(logs.String(), "API tools changed") {
		t.Fatalf("a 304 changed the tools: %v", got)
	}

	docs.publish(weatherAPIv2, `"wx-2"`, "Thu, 26 Nov 2026 12:30:00 GMT")
	hour(2)
	want := []string{"weather_get_air_quality", "weather_create_alert", "weather_get_forecast", "weather_get_stations_by_station"}
	if got := toolNames(reg); !slices.Equal(got, want) {
		t.Errorf("tools after the change: %v; want %v", got, want)
	}
	if spec, _ := reg.Lookup("weather_get_forecast"); !strings.Contains(spec.Description, "hourly") {
		t.Errorf("forecast still described as %q", spec.Description)
	}
	line := `msg="API tools changed" api=weather added=[weather_get_air_quality] removed=[weather_get_radar] changed=[weather_get_forecast]`
	if !strings.Contains(logs.String(), line) {
		t.Errorf("the log does not say what changed (%s):\n%s", line, logs.String())
	}
	kept, ok, err := db.APIDocumentOf(ctx, "weather")
	if err != nil || !ok || string(kept.Document) != weatherAPIv2 || kept.ETag != `"wx-2"` || kept.LastModified != "Thu, 26 Nov 2026 12:30:00 GMT" {
		t.Errorf("kept %+v, %v, %v; want the new document and its validators", kept, ok, err)
	}

	docs.setDown(true) // a failed refresh leaves the tools as they were
	hour(3)
	if got := toolNames(reg); !slices.Equal(got, want) {
		t.Errorf("tools after a failed refresh: %v", got)
	}
	if !strings.Contains(logs.String(), "API document cannot be refreshed; its tools stay as they are") {
		t.Error("the failed refresh was not logged")
	}
}

// With the document's server down at start, the tools come from the copy
// kept of the last good document, and the log says so; with no copy, the
// API is left out.
func TestAPIStartsFromTheKeptDocument(t *testing.T) {
	db := memorytest.Open(t)
	docs := newDocServer(t, weatherAPIv2, `"wx-2"`)
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	apis := []APIConfig{{Name: "weather", Document: docs.URL + "/openapi.yaml"}, {Name: "pets", Document: docs.URL + "/pets.yaml"}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := newAPISync(apis[:1], db, clock, time.Hour, log).load(ctx)
	if first[0].Err != nil {
		t.Fatal(first[0].Err)
	}

	docs.setDown(true)
	s := newAPISync(apis, db, clock, time.Hour, log)
	loaded := s.load(ctx)
	if loaded[0].Err != nil || len(loaded[0].Catalog.Tools) != 4 {
		t.Fatalf("weather at start with its server down: %+v", loaded[0])
	}
	if got := toolNames(registryOf(t, loaded[:1])); !slices.Contains(got, "weather_get_air_quality") {
		t.Errorf("tools %v; want those of the kept document", got)
	}
	if !strings.Contains(logs.String(), `msg="API document cannot be loaded; its tools are made from the copy kept of its last good one" api=weather`) ||
		!strings.Contains(logs.String(), "503 Service Unavailable") {
		t.Errorf("the log does not say the kept copy is used, and why:\n%s", logs.String())
	}
	if loaded[1].Err == nil || !strings.Contains(loaded[1].Err.Error(), "503") {
		t.Errorf("pets, never fetched: %+v; want it left out", loaded[1])
	}

	// Back up: the first refresh sends the kept copy's ETag, and the
	// unchanged document is a 304.
	docs.setDown(false)
	s.use(registryOf(t, loaded[:1]))
	s.Refresh(ctx)
	asked, answered := docs.requests()
	if got := asked[len(asked)-2:]; got[0] != `"wx-2"` || answered[len(answered)-2] != 304 {
		t.Errorf("asked %q, answered %v; want the kept ETag and a 304", asked, answered)
	}
}

// A document is fetched only from where it was configured: a redirect to
// another host is refused (its relative servers would follow it there),
// one on the same host is followed, and no error quotes the address,
// which may carry a key.
func TestDocumentFetchStaysOnItsHost(t *testing.T) {
	elsewhere := newDocServer(t, weatherAPI, `"x"`)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/openapi.yaml", http.StatusFound)
		case "/openapi.yaml":
			w.Write([]byte(weatherAPI))
		default:
			http.Redirect(w, r, elsewhere.URL+"/openapi.yaml", http.StatusFound)
		}
	}))
	t.Cleanup(home.Close)
	got, err := fetchIf(context.Background(), home.URL+"/moved?key=s3cret", apiState{})
	if err != nil || string(got.doc) != weatherAPI || got.url != home.URL+"/moved?key=s3cret" {
		t.Fatalf("same-host redirect: %v, url %q", err, got.url)
	}
	_, err = fetchIf(context.Background(), home.URL+"/away?key=s3cret", apiState{})
	if err == nil || !strings.Contains(err.Error(), "redirects to another host") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("cross-host redirect: %v", err)
	}
	if len(elsewhere.asked) != 0 {
		t.Fatal("the other host was asked")
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if _, err = fetchIf(context.Background(), closed.URL+"/doc?key=s3cret", apiState{}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("unreachable: %v", err)
	}
}

// The document's server starts serving one with no operations (a deploy
// gone wrong, a placeholder): the API's tools stay as they were, the copy
// kept for the next start too, and the log says why.
func TestAPIRefreshToNoToolsKeepsTheTools(t *testing.T) {
	db := memorytest.Open(t)
	docs := newDocServer(t, weatherAPI, `"wx-1"`)
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	s := newAPISync([]APIConfig{{Name: "weather", Document: docs.URL + "/openapi.yaml"}}, db, clock, time.Hour, log)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	loaded := s.load(ctx)
	if loaded[0].Err != nil {
		t.Fatal(loaded[0].Err)
	}
	reg := registryOf(t, loaded)
	s.use(reg)
	before := toolNames(reg)

	docs.publish("openapi: 3.1.0\ninfo: {title: Weather, version: '2.0'}\npaths: {}\n", `"wx-empty"`, "Thu, 26 Nov 2026 12:30:00 GMT")
	s.Refresh(ctx)
	if got := toolNames(reg); !slices.Equal(got, before) {
		t.Errorf("tools after a document with no operations: %v; want %v", got, before)
	}
	if kept, _, _ := db.APIDocumentOf(ctx, "weather"); string(kept.Document) != weatherAPI {
		t.Errorf("the copy kept for the next start is now %q", kept.Document)
	}
	if !strings.Contains(logs.String(), "gives no tool") {
		t.Errorf("the log does not say why the tools stayed:\n%s", logs.String())
	}
}

// The API's document is configured at a new address, whose server is down
// at start: the copy kept from the old address is not used, since its
// servers (and the key sent to them) are those the operator moved away
// from; the API is left out until its new document comes.
func TestKeptDocumentOfAnotherAddressIsNotUsed(t *testing.T) {
	db := memorytest.Open(t)
	old := newDocServer(t, weatherAPI, `"wx-1"`)
	moved := newDocServer(t, weatherAPIv2, `"wx-2"`)
	moved.setDown(true)
	log := slog.New(slog.NewTextHandler(&syncBuffer{}, nil))
	clock := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := newAPISync([]APIConfig{{Name: "weather", Document: old.URL + "/openapi.yaml"}}, db, clock, time.Hour, log).load(ctx)
	if first[0].Err != nil {
		t.Fatal(first[0].Err)
	}
	loaded := newAPISync([]APIConfig{{Name: "weather", Document: moved.URL + "/openapi.yaml"}}, db, clock, time.Hour, log).load(ctx)
	if loaded[0].Err == nil {
		t.Errorf("tools %v made from the document kept from %s; the API is now at %s", toolNames(registryOf(t, loaded)), old.URL, moved.URL)
	}
}
