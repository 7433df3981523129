package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
)

// weatherAPIv3 is weatherAPIv2 without the alerts.
var weatherAPIv3 = weatherAPIv2[:strings.Index(weatherAPIv2, "  /v1/alerts:")]

// The weather document changes between two turns: the second turn's
// model request offers the new tool and no longer the removed ones, with
// no restart; an alert waiting for its ✅ whose tool went away fails as an
// unknown tool when pressed.
func TestAPIDocumentChangesBetweenTurns(t *testing.T) {
	h := newHarness(t)
	api := newWeatherServer(t)
	docs := newDocServer(t, weatherAPI, `"wx-1"`)
	dir := t.TempDir()
	config := "apis:\n  - name: weather\n    document: " + docs.URL + "/openapi.yaml\n    base_url: " + api.URL + "\n" +
		"    auth: {header: X-Api-Key, env: WEATHER_KEY}\n"
	os.WriteFile(filepath.Join(dir, "apis.yaml"), []byte(config), 0o600)
	h.env["RYO_APIS"] = filepath.Join(dir, "apis.yaml")
	h.env["WEATHER_KEY"] = weatherKey
	h.env["RYO_CONFIRM"] = "changes"
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("weather_create_alert", `{"body":{"place":"Lisbon","when":"rain"}}`)},
		ollamatest.Reply{Content: envelope("The alert service is gone, so no alert was set.")},
		ollamatest.Reply{Content: envelope("The air in Lisbon is good today.")},
	)
	h.start()

	h.tg.SendText(dm, alice, "Tell me when it rains in Lisbon")
	p := h.prompt(dm)
	docs.publish(weatherAPIv3, `"wx-3"`, "Thu, 26 Nov 2026 12:30:00 GMT")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.main.APIs.Refresh(ctx)
	if !strings.Contains(h.logs.String(), "added=[weather_get_air_quality] removed=\"[weather_create_alert weather_get_radar]\" changed=[weather_get_forecast]") {
		t.Errorf("the change was not logged by name:\n%s", h.logs.String())
	}

	h.press(dm, alice, p, "✅")
	h.answer(dm, p.ID, "no alert was set")
	if n := len(api.requests()); n != 0 {
		t.Errorf("the API got %d requests; the removed tool ran", n)
	}
	if shown := h.lastShown(1); !strings.HasPrefix(shown, "__tool_result__ weather_create_alert ") || !strings.Contains(shown, "unknown_tool") {
		t.Errorf("the model was shown %q; want unknown_tool", shown)
	}

	q := h.tg.SendText(dm, alice, "How is the air in Lisbon?")
	h.answer(dm, q.ID, "air in Lisbon is good")
	reqs := h.llm.Requests()
	before, after := reqs[0], reqs[2]
	if strings.Contains(before.Messages[0].Content, "weather_get_air_quality") || !strings.Contains(before.Messages[0].Content, "weather_create_alert") {
		t.Errorf("the first turn offered the tools of the new document")
	}
	system, format := after.Messages[0].Content, string(after.Format)
	for _, name := range []string{"weather_get_air_quality", "weather_get_forecast"} {
		if !strings.Contains(system, name) || !strings.Contains(format, name) {
			t.Errorf("the second turn does not offer %s", name)
		}
	}
	for _, name := range []string{"weather_create_alert", "weather_get_radar"} {
		if strings.Contains(system, name) || strings.Contains(format, name) {
			t.Errorf("the second turn still offers %s", name)
		}
	}
}

// The document changes while an alert waits for its ✅: its operation,
// which changed something and was confirmed as such, now deletes. The
// person confirmed a change, not something that cannot be undone, so the
// press does not run it: the API gets no request and the model is told
// why.
func TestHeldToolThatBecameDestructiveDoesNotRun(t *testing.T) {
	h := newHarness(t)
	api := newWeatherServer(t)
	docs := newDocServer(t, weatherAPI, `"wx-1"`)
	dir := t.TempDir()
	config := "apis:\n  - name: weather\n    document: " + docs.URL + "/openapi.yaml\n    base_url: " + api.URL + "\n" +
		"    auth: {header: X-Api-Key, env: WEATHER_KEY}\n"
	os.WriteFile(filepath.Join(dir, "apis.yaml"), []byte(config), 0o600)
	h.env["RYO_APIS"] = filepath.Join(dir, "apis.yaml")
	h.env["WEATHER_KEY"] = weatherKey
	h.env["RYO_CONFIRM"] = "changes"
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("weather_create_alert", `{"body":{"place":"Lisbon","when":"rain"}}`)},
		ollamatest.Reply{Content: envelope("The alert tool changed, so no alert was set.")},
	)
	h.start()

	h.tg.SendText(dm, alice, "Tell me when it rains in Lisbon")
	p := h.prompt(dm)
	if !strings.Contains(p.Text, "This changes something") {
		t.Fatalf("the prompt does not say it changes something:\n%s", p.Text)
	}
	deletes := strings.Replace(weatherAPI, "    post:\n      operationId: createAlert", "    delete:\n      operationId: createAlert", 1)
	if deletes == weatherAPI {
		t.Fatal("the document was not changed")
	}
	docs.publish(deletes, `"wx-4"`, "Thu, 26 Nov 2026 12:40:00 GMT")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.main.APIs.Refresh(ctx)
	if !strings.Contains(h.logs.String(), "changed=[weather_create_alert]") {
		t.Fatalf("the change was not logged:\n%s", h.logs.String())
	}

	h.press(dm, alice, p, "✅")
	h.answer(dm, p.ID, "no alert was set")
	if reqs := api.requests(); len(reqs) != 0 {
		t.Errorf("the API got %+v; a press that confirmed a change ran a deletion", reqs)
	}
	if shown := h.lastShown(1); !strings.Contains(shown, "tool_changed") {
		t.Errorf("the model was shown %q; want tool_changed", shown)
	}
}

// A tier names an API whose document cannot be fetched at the first
// start, with no copy kept: ryo starts without the API's tools, as it does
// without a tier, and once the document can be fetched the tier unlocks
// them.
func TestTierNamingAnAPIThatIsDownAtStart(t *testing.T) {
	h := newHarness(t)
	api := newWeatherServer(t)
	docs := newDocServer(t, weatherAPI, `"wx-1"`)
	docs.setDown(true)
	dir := t.TempDir()
	config := "apis:\n  - name: weather\n    document: " + docs.URL + "/openapi.yaml\n    base_url: " + api.URL + "\n" +
		"    auth: {header: X-Api-Key, env: WEATHER_KEY}\n"
	os.WriteFile(filepath.Join(dir, "apis.yaml"), []byte(config), 0o600)
	h.env["RYO_APIS"] = filepath.Join(dir, "apis.yaml")
	h.env["WEATHER_KEY"] = weatherKey
	h.env["RYO_TIERS"] = "family=calculate,weather"
	h.env["RYO_DEFAULT_TIER"] = "family"
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Hello.")})
	h.start()

	docs.setDown(false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h.main.APIs.Refresh(ctx)
	q := h.tg.SendText(dm, alice, "hi")
	h.answer(dm, q.ID, "Hello.")
	if system := h.llm.Requests()[0].Messages[0].Content; !strings.Contains(system, "weather_get_forecast") {
		t.Errorf("the family tier does not unlock the weather tools once their document is back")
	}
}
