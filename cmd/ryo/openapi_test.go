package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// weatherAPI describes, in OpenAPI 3.1, the weather service of the tests:
// Open-Meteo's shape (no operationIds but one, arrays sent comma-separated)
// with a station lookup that can miss, a radar that never answers in time
// and alerts that change something.
const weatherAPI = `openapi: 3.1.0
info: {title: Weather, version: '1.0'}
servers:
  - url: https://api.weather.example
paths:
  /v1/forecast:
    get:
      summary: Get the daily weather forecast for coordinates.
      parameters:
        - {name: latitude, in: query, required: true, description: WGS84 coordinate, schema: {type: number, minimum: -90, maximum: 90}}
        - {name: longitude, in: query, required: true, description: WGS84 coordinate, schema: {type: number, minimum: -180, maximum: 180}}
        - name: daily
          in: query
          explode: false
          schema: {type: array, items: {type: string, enum: [temperature_2m_max, temperature_2m_min, precipitation_sum]}}
        - {name: forecast_days, in: query, schema: {type: integer, minimum: 1, maximum: 16, default: 7}}
        - {name: timezone, in: query, schema: {type: string}}
      responses:
        '200': {description: OK}
  /v1/stations/{station}:
    get:
      summary: Get the latest observation of a weather station.
      parameters:
        - {name: station, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: OK}
        '404': {description: No such station}
  /v1/radar:
    get:
      summary: Get the current rain radar summary.
      responses:
        '200': {description: OK}
  /v1/alerts:
    post:
      operationId: createAlert
      summary: Create a weather alert for a place.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [place, when]
              properties:
                place: {type: string}
                when: {type: string, enum: [rain, frost, storm]}
      responses:
        '201': {description: Created}
`

// forecast is Open-Meteo's answer for Lisbon, two days.
const forecast = `{"latitude":38.72,"longitude":-9.14,"timezone":"Europe/Lisbon","daily_units":{"temperature_2m_max":"°C","precipitation_sum":"mm"},` +
	`"daily":{"time":["2026-11-23","2026-11-24"],"temperature_2m_max":[17.9,18.4],"temperature_2m_min":[11.2,12.0],"precipitation_sum":[0.0,2.4]}}`

// wireRequest is a request as the weather API received it.
type wireRequest struct {
	Method, Path string
	Query        url.Values
	Key          string
	Body         string
}

// weatherServer is the weather API: it wants the key in X-Api-Key.
type weatherServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []wireRequest
}

func newWeatherServer(t *testing.T) *weatherServer {
	w := &weatherServer{}
	w.Server = httptest.NewServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (ws *weatherServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ws.mu.Lock()
	ws.seen = append(ws.seen, wireRequest{r.Method, r.URL.Path, r.URL.Query(), r.Header.Get("X-Api-Key"), string(body)})
	ws.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Header.Get("X-Api-Key") != weatherKey:
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":true,"reason":"wrong API key"}`)
	case r.URL.Path == "/v1/forecast":
		io.WriteString(w, forecast)
	case r.URL.Path == "/v1/radar":
		<-r.Context().Done() // answers only after ryo gave up
	case r.URL.Path == "/v1/alerts" && r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"al-20261123-1","place":"Lisbon","when":"rain"}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":true,"reason":"No station with this id"}`)
	}
}

func (ws *weatherServer) requests() []wireRequest {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return append([]wireRequest(nil), ws.seen...)
}

// weatherHarness is a harness with the weather API configured through
// RYO_APIS: the document is a file, the base URL the test server's, the
// key in WEATHER_KEY; the radar's deadline is short.
func weatherHarness(t *testing.T) (*harness, *weatherServer) {
	h := newHarness(t)
	api := newWeatherServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "weather.yaml"), []byte(weatherAPI), 0o600)
	config := "apis:\n  - name: weather\n    document: weather.yaml\n    base_url: " + api.URL + "\n" +
		"    auth: {header: X-Api-Key, env: WEATHER_KEY}\n    overrides:\n      get_radar: {timeout: 300ms}\n" +
		"  - name: gone\n    document: gone.yaml\n" // cannot be loaded: left out, ryo starts
	os.WriteFile(filepath.Join(dir, "apis.yaml"), []byte(config), 0o600)
	h.env["RYO_APIS"] = filepath.Join(dir, "apis.yaml")
	h.env["WEATHER_KEY"] = weatherKey
	h.env["RYO_CONFIRM"] = "changes"
	return h, api
}

// lastShown is the last message the model was shown in its nth call.
func (h *harness) lastShown(n int) string {
	h.t.Helper()
	reqs := h.llm.Requests()
	if len(reqs) <= n {
		h.t.Fatalf("the model was called %d times; want a call %d", len(reqs), n+1)
	}
	msgs := reqs[n].Messages
	return msgs[len(msgs)-1].Content
}

// "What's the weather in Lisbon tomorrow?": the model calls the tool made
// from the document, the request on the wire is the document's, the
// answer carries the API's figures; a station that does not exist (404)
// and a radar that does not answer in time give the model short errors it
// recovers from; /metrics counts the calls; the key is nowhere but on the
// wire.
func TestWeatherAPI(t *testing.T) {
	h, api := weatherHarness(t)
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("weather_get_forecast",
			`{"latitude":38.72,"longitude":-9.14,"daily":["temperature_2m_max","temperature_2m_min","precipitation_sum"],"forecast_days":2,"timezone":"Europe/Lisbon"}`)},
		ollamatest.Reply{Content: envelope("Tomorrow in Lisbon: up to 18.4 °C, down to 12 °C, 2.4 mm of rain.")},
		ollamatest.Reply{Content: command("weather_get_stations_by_station", `{"station":"LPPT-9"}`)},
		ollamatest.Reply{Content: envelope("There is no station LPPT-9; try another id.")},
		ollamatest.Reply{Content: command("weather_get_radar", `{}`)},
		ollamatest.Reply{Content: envelope("The radar is not answering right now.")},
	)
	h.start()
	if !strings.Contains(h.logs.String(), "API ready") || !strings.Contains(h.logs.String(), "api=weather tools=4 skipped=0") {
		t.Errorf("start-up did not log the API's tools:\n%s", h.logs.String())
	}
	if !strings.Contains(h.logs.String(), "API left out: its document cannot be loaded; ryo runs without its tools\" api=gone") {
		t.Error("start-up did not log the API it left out")
	}

	q := h.tg.SendText(dm, alice, "What's the weather in Lisbon tomorrow?")
	h.answer(dm, q.ID, "up to 18.4 °C")
	wire := api.requests()
	if len(wire) != 1 {
		t.Fatalf("the API got %d requests; want 1: %+v", len(wire), wire)
	}
	want := url.Values{"latitude": {"38.72"}, "longitude": {"-9.14"}, "daily": {"temperature_2m_max,temperature_2m_min,precipitation_sum"},
		"forecast_days": {"2"}, "timezone": {"Europe/Lisbon"}}
	if r := wire[0]; r.Method != http.MethodGet || r.Path != "/v1/forecast" || r.Query.Encode() != want.Encode() || r.Key != weatherKey {
		t.Errorf("on the wire: %+v; want GET /v1/forecast?%s with the key", r, want.Encode())
	}
	if shown := h.lastShown(1); !strings.HasPrefix(shown, "__tool_result__ weather_get_forecast ") ||
		!strings.Contains(shown, `"status":"ok"`) || !strings.Contains(shown, "18.4") || !strings.Contains(shown, "2.4") {
		t.Errorf("the model was shown %q; want the forecast", shown)
	}

	q = h.tg.SendText(dm, alice, "And what does station LPPT-9 say?")
	h.answer(dm, q.ID, "no station LPPT-9")
	if r := api.requests()[1]; r.Path != "/v1/stations/LPPT-9" {
		t.Errorf("on the wire: %+v", r)
	}
	if shown := h.lastShown(3); !strings.Contains(shown, `"status":"error"`) || !strings.Contains(shown, "http_404") ||
		!strings.Contains(shown, "No station with this id") {
		t.Errorf("the model was shown %q; want http_404 with the API's reason", shown)
	}

	q = h.tg.SendText(dm, alice, "Is it raining on the radar?")
	h.answer(dm, q.ID, "radar is not answering")
	if shown := h.lastShown(5); !strings.Contains(shown, `"status":"error"`) || !strings.Contains(shown, `"timeout"`) {
		t.Errorf("the model was shown %q; want a timeout", shown)
	}

	metrics := scrape(t, h)
	for series, want := range map[string]float64{
		`ryo_tool_calls_total{status="ok",tool="weather_get_forecast"}`:                 1,
		`ryo_tool_calls_total{status="error",tool="weather_get_stations_by_station"}`:   1,
		`ryo_tool_errors_total{code="http_404",tool="weather_get_stations_by_station"}`: 1,
		`ryo_tool_errors_total{code="timeout",tool="weather_get_radar"}`:                1,
	} {
		if v, ok := sample(metrics, series); !ok || v != want {
			t.Errorf("%s = %v (shown: %v); want %v", series, v, ok, want)
		}
	}

	var shown strings.Builder
	for _, r := range h.llm.Requests() {
		b, _ := json.Marshal(r)
		shown.Write(b)
	}
	for where, text := range map[string]string{"the logs": h.logs.String(), "the model's prompts": shown.String(), "/metrics": metrics} {
		if strings.Contains(text, weatherKey) {
			t.Errorf("the API key is in %s", where)
		}
	}
}

// A POST the document describes changes something: it waits for the
// person's ✅ like any other tool that does, and only then is sent.
func TestWeatherAPIAlertWaitsForYes(t *testing.T) {
	h, api := weatherHarness(t)
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("weather_create_alert", `{"body":{"place":"Lisbon","when":"rain"}}`)},
		ollamatest.Reply{Content: envelope("Done: you'll hear when rain comes to Lisbon (alert al-20261123-1).")},
	)
	h.start()
	h.tg.SendText(dm, alice, "Tell me when it rains in Lisbon")
	p := h.prompt(dm)
	if n := len(api.requests()); n != 0 {
		t.Fatalf("the API got %d requests before the yes", n)
	}
	h.press(dm, alice, p, "✅")
	h.answer(dm, p.ID, "al-20261123-1")
	wire := api.requests()
	if len(wire) != 1 || wire[0].Method != http.MethodPost || wire[0].Path != "/v1/alerts" {
		t.Fatalf("on the wire: %+v", wire)
	}
	var body map[string]string
	if err := json.Unmarshal([]byte(wire[0].Body), &body); err != nil || body["place"] != "Lisbon" || body["when"] != "rain" {
		t.Errorf("body %q; want the place and when as JSON", wire[0].Body)
	}
}
