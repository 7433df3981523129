package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// forecastSpec is a tool of the weather API, as its document describes it.
func forecastSpec(name, description string) toolbus.Spec {
	return toolbus.Spec{Name: name, Description: description, Category: "weather",
		Schema:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
		Examples: []toolbus.Example{{Question: "Weather in Lisbon?", Arguments: json.RawMessage(`{"city":"Lisbon"}`)}},
		Tool:     toolbus.ToolFunc(func(context.Context, json.RawMessage) (any, error) { return "sunny", nil })}
}

// The API's tools change between two turns: the next turn's prompt and
// format offer the new tool, with no new agent; the same tools again leave
// the system prompt the same bytes.
func TestReplacedToolsTakeEffectAtTheNextTurn(t *testing.T) {
	f := newFixtureWith(t, []toolbus.Spec{forecastSpec("weather_get_forecast", "Get the daily forecast for a city.")},
		reply("Sunny."), reply("Sunny."), reply("Clean air."))
	if _, err := f.run(t, private("weather?")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Replace("weather", []toolbus.Spec{forecastSpec("weather_get_forecast", "Get the daily forecast for a city.")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run(t, private("weather?")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Replace("weather", []toolbus.Spec{forecastSpec("weather_get_forecast", "Get the daily forecast for a city."),
		forecastSpec("weather_get_air_quality", "Get the air quality index for a city.")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.run(t, private("air?")); err != nil {
		t.Fatal(err)
	}
	reqs := f.model.requests
	if len(reqs) != 3 {
		t.Fatalf("%d model calls; want 3", len(reqs))
	}
	first, same, changed := reqs[0].Messages[0].Content, reqs[1].Messages[0].Content, reqs[2].Messages[0].Content
	if first != same {
		t.Error("the system prompt changed though the tools did not")
	}
	if strings.Contains(first, "weather_get_air_quality") || !strings.Contains(changed, "weather_get_air_quality") {
		t.Errorf("the new tool is not offered at the next turn:\n%s", changed)
	}
	if !strings.Contains(string(reqs[2].Format), "weather_get_air_quality") {
		t.Errorf("the format does not admit the new tool: %s", reqs[2].Format)
	}
}
