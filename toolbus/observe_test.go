package toolbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// recorder is an observer that keeps what it was told.
type recorder struct {
	mu   sync.Mutex
	seen []string // tool status code attempts
}

func (r *recorder) ToolCalled(tool string, res toolbus.Result) {
	code := ""
	if res.Error != nil {
		code = res.Error.Code
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, fmt.Sprintf("%s %s %s %d", tool, res.Status, code, res.Attempts))
}

// The observer hears of every call the registry runs, once, under the
// registered tool's name: a name the model made up is UnknownTool.
func TestObserverHearsEveryCallOnce(t *testing.T) {
	failing := spec("failing", toolbus.Mutating, func(context.Context, json.RawMessage) (any, error) {
		return nil, errors.New("disk full")
	})
	r := registry(t, spec("echo", toolbus.ReadOnly, echo), failing)
	rec := &recorder{}
	r.SetObserver(rec)

	call(r, "echo", `{"text":"hi"}`)
	call(r, "echo", `{"text":"hi"}`) // the same key: the earlier result, not a new run
	call(r, "echo", `{"text":5}`)
	call(r, "Robert'); DROP TABLE tools;--", `{}`)
	call(r, "failing", `{"text":"x"}`)
	r.Run(context.Background(), toolbus.Call{ID: "c2", Key: "k2", Tool: "echo", Args: json.RawMessage(`{"text":"hi"}`), Allowed: []string{}})

	want := []string{
		"echo ok  1",
		"echo error invalid_arguments 0",
		"(unknown) error unknown_tool 0",
		"failing error tool_failed 1",
		"echo denied not_allowed 0",
	}
	if fmt.Sprint(rec.seen) != fmt.Sprint(want) {
		t.Fatalf("observed\n%q\nwant\n%q", rec.seen, want)
	}
}

// No registered tool can be named like the stand-in for unknown ones.
func TestUnknownToolIsNoToolName(t *testing.T) {
	s := spec(toolbus.UnknownTool, toolbus.ReadOnly, echo)
	if err := toolbus.NewRegistry().Register(s); err == nil {
		t.Fatalf("a tool named %q was registered", toolbus.UnknownTool)
	}
}

// A tool removed while it runs (its API's document changed) is counted
// under its own name, the tool that ran, not as a name the model made up.
func TestToolRemovedWhileRunningKeepsItsName(t *testing.T) {
	started, finish := make(chan struct{}), make(chan struct{})
	slow := spec("weather_get_radar", toolbus.ReadOnly, func(context.Context, json.RawMessage) (any, error) {
		close(started)
		<-finish
		return map[string]string{"radar": "clear"}, nil
	})
	slow.Category = "weather"
	r := registry(t, slow)
	rec := &recorder{}
	r.SetObserver(rec)
	done := make(chan toolbus.Result)
	go func() { done <- call(r, "weather_get_radar", `{"text":"Lisbon"}`) }()
	<-started
	if _, err := r.Replace("weather", nil); err != nil {
		t.Fatal(err)
	}
	close(finish)
	if res := <-done; res.Status != toolbus.StatusOK {
		t.Fatalf("the call: %+v", res)
	}
	if want := []string{"weather_get_radar ok  1"}; fmt.Sprint(rec.seen) != fmt.Sprint(want) {
		t.Fatalf("observed %q; want %q", rec.seen, want)
	}
}
