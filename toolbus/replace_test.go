package toolbus_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// apiSpec is a tool of the weather API's category.
func apiSpec(name, description string) toolbus.Spec {
	s := spec(name, toolbus.ReadOnly, echo)
	s.Category, s.Description = "weather", description
	return s
}

func specNames(specs []toolbus.Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// An API's document changed: its tools are replaced at once, in their
// place in the order, and what changed is told by name; the other tools,
// the observer and the finished calls are kept.
func TestReplaceCategory(t *testing.T) {
	r := toolbus.NewRegistry()
	obs := &recorder{}
	r.SetObserver(obs)
	for _, s := range []toolbus.Spec{spec("calculate", toolbus.ReadOnly, echo),
		apiSpec("weather_get_forecast", "Get the daily weather forecast."), apiSpec("weather_get_radar", "Get the rain radar."),
		spec("remember", toolbus.ReadOnly, echo)} {
		if err := r.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	ch, err := r.Replace("weather", []toolbus.Spec{apiSpec("weather_get_forecast", "Get the hourly weather forecast."),
		apiSpec("weather_get_air_quality", "Get the air quality index."), apiSpec("calculate", "Get a clash.")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Added, []string{"weather_get_air_quality"}) || !slices.Equal(ch.Removed, []string{"weather_get_radar"}) ||
		!slices.Equal(ch.Changed, []string{"weather_get_forecast"}) || !slices.Equal(ch.Clashed, []string{"calculate"}) {
		t.Errorf("change %+v", ch)
	}
	want := []string{"calculate", "weather_get_forecast", "weather_get_air_quality", "remember"}
	if got := specNames(r.Specs()); !slices.Equal(got, want) {
		t.Errorf("order %v; want %v", got, want)
	}
	if s, _ := r.Lookup("calculate"); s.Category == "weather" {
		t.Error("the clashing tool replaced another category's")
	}
	res := r.Run(context.Background(), toolbus.Call{ID: "1", Key: "k1", Tool: "weather_get_radar", Args: json.RawMessage(`{"text":"hi"}`)})
	if res.Error == nil || res.Error.Code != toolbus.CodeUnknownTool {
		t.Errorf("a removed tool ran: %+v", res)
	}
	if len(obs.seen) != 1 || !strings.HasPrefix(obs.seen[0], toolbus.UnknownTool+" ") {
		t.Errorf("observer saw %v; want the unknown tool", obs.seen)
	}
	again, err := r.Replace("weather", []toolbus.Spec{apiSpec("weather_get_forecast", "Get the hourly weather forecast."),
		apiSpec("weather_get_air_quality", "Get the air quality index.")})
	if err != nil || !again.Empty() {
		t.Errorf("the same tools again: %+v, %v; want no change", again, err)
	}
}

// A replacement Register would refuse leaves the old tools in place.
func TestReplaceRefusedKeepsTheOld(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(apiSpec("weather_get_forecast", "Get the daily weather forecast.")); err != nil {
		t.Fatal(err)
	}
	bad := apiSpec("weather_get_radar", "The rain radar.") // not a verb
	if _, err := r.Replace("weather", []toolbus.Spec{bad}); err == nil {
		t.Fatal("a bad spec was accepted")
	}
	other := spec("remember", toolbus.ReadOnly, echo)
	if _, err := r.Replace("weather", []toolbus.Spec{other}); err == nil {
		t.Fatal("another category's spec was accepted")
	}
	if got := specNames(r.Specs()); !slices.Equal(got, []string{"weather_get_forecast"}) {
		t.Errorf("tools %v", got)
	}
}

// A tier that names an API's category unlocks that API's tools as they are
// now; a tier naming a removed tool unlocks nothing of it.
func TestTiersFollowTheRegistry(t *testing.T) {
	r := toolbus.NewRegistry()
	for _, s := range []toolbus.Spec{spec("calculate", toolbus.ReadOnly, echo), apiSpec("weather_get_forecast", "Get the forecast."),
		apiSpec("weather_get_radar", "Get the rain radar.")} {
		if err := r.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	tiers, err := toolbus.ParseTiers("guest=calculate,weather;radar=weather_get_radar", "guest", r.Specs())
	if err != nil {
		t.Fatal(err)
	}
	tiers.Follow(r)
	if _, err := r.Replace("weather", []toolbus.Spec{apiSpec("weather_get_forecast", "Get the forecast."),
		apiSpec("weather_get_air_quality", "Get the air quality.")}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tiers.Tools("guest"), ","); got != "calculate,weather_get_forecast,weather_get_air_quality" {
		t.Errorf("guest: %s", got)
	}
	if got := tiers.Tools("radar"); got == nil || len(got) != 0 {
		t.Errorf("radar: %#v; want none, not nil", got)
	}
}

// Calls and replacements at once: no race, no torn tool set.
func TestReplaceWhileRunning(t *testing.T) {
	r := toolbus.NewRegistry()
	if err := r.Register(apiSpec("weather_get_forecast", "Get the forecast.")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 50 {
			desc := []string{"Get the forecast.", "Get the hourly forecast."}[i%2]
			if _, err := r.Replace("weather", []toolbus.Spec{apiSpec("weather_get_forecast", desc)}); err != nil {
				t.Error(err)
			}
		}
	})
	for i := range 50 {
		res := r.Run(context.Background(), toolbus.Call{ID: "c", Key: string(rune('a' + i)), Tool: "weather_get_forecast", Args: json.RawMessage(`{"text":"hi"}`)})
		if res.Status != toolbus.StatusOK {
			t.Fatalf("run %d: %+v", i, res)
		}
		_ = r.Specs()
	}
	wg.Wait()
}

// A tool replaced by one whose status line for a call reads otherwise
// has changed: the person sees it.
func TestReplacedStatusLineIsAChange(t *testing.T) {
	about := func(line string) toolbus.Spec {
		s := apiSpec("weather_get_forecast", "Get the daily weather forecast.")
		s.Doing, s.DoingAbout = "🌦 reading the forecast", line
		s.DoingWith = func(json.RawMessage) string { return "Oslo" }
		return s
	}
	r := toolbus.NewRegistry()
	if err := r.Register(about("🌦 reading the forecast for %s")); err != nil {
		t.Fatal(err)
	}
	ch, err := r.Replace("weather", []toolbus.Spec{about("🌦 reading the radar over %s")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Changed, []string{"weather_get_forecast"}) {
		t.Errorf("change %+v", ch)
	}
}
