package toolbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

const echoSchema = `{"type":"object","properties":{"text":{"type":"string","maxLength":50}},"required":["text"],"additionalProperties":false}`

func spec(name string, effect toolbus.Effect, f toolbus.ToolFunc) toolbus.Spec {
	return toolbus.Spec{Name: name, Description: "Echo the text back", Schema: json.RawMessage(echoSchema), Effect: effect, Tool: f,
		Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Say hi back.", Arguments: json.RawMessage(`{"text":"hi"}`)}}}
}

func echo(_ context.Context, args json.RawMessage) (any, error) {
	var a struct{ Text string }
	json.Unmarshal(args, &a)
	return map[string]string{"echo": a.Text}, nil
}

func registry(t *testing.T, specs ...toolbus.Spec) *toolbus.Registry {
	t.Helper()
	r := toolbus.NewRegistry()
	for _, s := range specs {
		if err := r.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func call(r *toolbus.Registry, tool, args string) toolbus.Result {
	return r.Run(context.Background(), toolbus.Call{ID: "c1", Key: toolbus.Key(1, 1, tool, json.RawMessage(args)), Tool: tool, Args: json.RawMessage(args)})
}

func TestRegisterRefuses(t *testing.T) {
	good := spec("echo", toolbus.ReadOnly, echo)
	tests := []struct {
		name string
		mod  func(*toolbus.Spec)
		want string
	}{
		{"bad name", func(s *toolbus.Spec) { s.Name = "Echo Tool" }, "lower_snake_case"},
		{"no description", func(s *toolbus.Spec) { s.Description = "" }, "1 to 200"},
		{"long description", func(s *toolbus.Spec) { s.Description = "Echo " + strings.Repeat("x", 200) }, "1 to 200"},
		{"not a verb", func(s *toolbus.Spec) { s.Description = "This tool echoes" }, "start with a verb"},
		{"lower case", func(s *toolbus.Spec) { s.Description = "echo the text" }, "start with a verb"},
		{"open schema", func(s *toolbus.Spec) {
			s.Schema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
		}, `"additionalProperties": false`},
		{"open nested", func(s *toolbus.Spec) {
			s.Schema = json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","properties":{}}},"additionalProperties":false}`)
		}, "$.properties.o"},
		{"not an object", func(s *toolbus.Spec) { s.Schema = json.RawMessage(`{"type":"string"}`) }, `"type": "object"`},
		{"no tool", func(s *toolbus.Spec) { s.Tool = nil }, "no Tool"},
		{"no category", func(s *toolbus.Spec) { s.Category = "" }, "category"},
		{"long category", func(s *toolbus.Spec) { s.Category = toolbus.Category(strings.Repeat("x", 33)) }, "category"},
		{"no example", func(s *toolbus.Spec) { s.Examples = nil }, "one or two examples"},
		{"three examples", func(s *toolbus.Spec) { s.Examples = append(s.Examples, s.Examples[0], s.Examples[0]) }, "one or two examples"},
		{"example without a question", func(s *toolbus.Spec) {
			s.Examples = []toolbus.Example{{Arguments: json.RawMessage(`{"text":"hi"}`)}}
		}, "example 1: the question"},
		{"example missing an argument", func(s *toolbus.Spec) {
			s.Examples = []toolbus.Example{{Question: "Say hi.", Arguments: json.RawMessage(`{}`)}}
		}, `example 1 ("Say hi.")`},
		{"example with an argument too many", func(s *toolbus.Spec) {
			s.Examples = append(s.Examples, toolbus.Example{Question: "Shout hi.", Arguments: json.RawMessage(`{"text":"hi","loud":true}`)})
		}, `example 2 ("Shout hi.")`},
		{"example too long for the schema", func(s *toolbus.Spec) {
			s.Examples = []toolbus.Example{{Question: "Echo a lot.", Arguments: json.RawMessage(`{"text":"` + strings.Repeat("x", 51) + `"}`)}}
		}, "do not fit the schema"},
		{"example that is no JSON", func(s *toolbus.Spec) {
			s.Examples = []toolbus.Example{{Question: "Say hi.", Arguments: json.RawMessage(`{"text":`)}}
		}, "example 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.mod(&s)
			err := toolbus.NewRegistry().Register(s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Register = %v; want %q", err, tt.want)
			}
		})
	}
}

func TestRunValidatesAndEncodes(t *testing.T) {
	r := registry(t, spec("echo", toolbus.ReadOnly, echo))
	res := call(r, "echo", `{"text":"hi"}`)
	if res.Status != toolbus.StatusOK || string(res.Output) != `{"echo":"hi"}` {
		t.Fatalf("Run = %+v", res)
	}
	if got := res.Text(); got != `__tool_result__ echo {"call_id":"c1","result":{"echo":"hi"},"status":"ok"}` {
		t.Fatalf("Text = %s", got)
	}
	var meta map[string]any
	json.Unmarshal(res.Metadata(), &meta)
	if meta["tool"] != "echo" || meta["status"] != "ok" || meta["idempotency_key"] != res.Key || meta["arguments"].(map[string]any)["text"] != "hi" {
		t.Fatalf("Metadata = %s", res.Metadata())
	}
	bad := call(r, "echo", `{"text":"hi","loud":true}`)
	if bad.Status != toolbus.StatusError || bad.Error.Code != toolbus.CodeInvalidArgs || !strings.Contains(bad.Error.Message, "loud") {
		t.Fatalf("Run(extra field) = %+v", bad)
	}
	unknown := call(r, "shout", `{}`)
	if unknown.Error == nil || unknown.Error.Code != toolbus.CodeUnknownTool || !strings.Contains(unknown.Error.Message, "echo") {
		t.Fatalf("Run(unknown) = %+v; want unknown_tool listing echo", unknown)
	}
}

func TestRunDeadline(t *testing.T) {
	s := spec("slow", toolbus.Mutating, func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.Timeout = 20 * time.Millisecond
	res := call(registry(t, s), "slow", `{"text":"x"}`)
	if res.Status != toolbus.StatusError || res.Error.Code != toolbus.CodeTimeout {
		t.Fatalf("Run(slow) = %+v; want a timeout", res)
	}
}

func TestRunTruncates(t *testing.T) {
	s := spec("big", toolbus.ReadOnly, func(context.Context, json.RawMessage) (any, error) {
		return strings.Repeat("x", 1000), nil
	})
	s.MaxResult = 100
	res := call(registry(t, s), "big", `{"text":"x"}`)
	var out map[string]string
	json.Unmarshal(res.Output, &out)
	if !res.Truncated || len(res.Output) > 100 || !strings.HasPrefix(out["partial"], `"xxx`) || !strings.Contains(out["truncated"], "1002 bytes") {
		t.Fatalf("Run(big) = %+v", res)
	}
}

func TestRunIsIdempotent(t *testing.T) {
	var runs atomic.Int32
	r := registry(t, spec("count", toolbus.Mutating, func(context.Context, json.RawMessage) (any, error) {
		return runs.Add(1), nil
	}))
	first := call(r, "count", `{"text":"a"}`)
	again := r.Run(context.Background(), toolbus.Call{ID: "c2", Tool: "count", Key: toolbus.Key(1, 1, "count", json.RawMessage(`{ "text" : "a" }`)),
		Args: json.RawMessage(`{ "text" : "a" }`)})
	if runs.Load() != 1 || string(again.Output) != string(first.Output) {
		t.Fatalf("ran %d times; the same key must run once", runs.Load())
	}
	if call(r, "count", `{"text":"b"}`); runs.Load() != 2 {
		t.Fatal("other arguments did not run")
	}
}

func TestOnlyReadOnlyToolsAreRetried(t *testing.T) {
	for _, effect := range []toolbus.Effect{toolbus.ReadOnly, toolbus.Mutating} {
		var runs atomic.Int32
		r := registry(t, spec("flaky", effect, func(context.Context, json.RawMessage) (any, error) {
			if runs.Add(1) == 1 {
				return nil, errors.New("connection reset")
			}
			return "fine", nil
		}))
		res := call(r, "flaky", `{"text":"x"}`)
		wantOK := effect == toolbus.ReadOnly
		if (res.Status == toolbus.StatusOK) != wantOK {
			t.Fatalf("%v tool: %+v after %d runs", effect, res, runs.Load())
		}
	}
}

func TestModelErrorsAreNotRetried(t *testing.T) {
	var runs atomic.Int32
	r := registry(t, spec("picky", toolbus.ReadOnly, func(context.Context, json.RawMessage) (any, error) {
		runs.Add(1)
		return nil, toolbus.Errorf("bad_input", "say it differently")
	}))
	res := call(r, "picky", `{"text":"x"}`)
	if runs.Load() != 1 || res.Error.Code != "bad_input" || res.Error.Message != "say it differently" {
		t.Fatalf("Run = %+v after %d runs", res, runs.Load())
	}
}

// A destructive tool never runs without the person's yes; with it, it
// runs once.
func TestDestructiveToolsWaitForTheYes(t *testing.T) {
	var ran atomic.Bool
	r := registry(t, spec("wipe", toolbus.Destructive, func(context.Context, json.RawMessage) (any, error) {
		ran.Store(true)
		return nil, nil
	}))
	res := call(r, "wipe", `{"text":"x"}`)
	if ran.Load() || res.Status != toolbus.StatusDenied || !strings.Contains(res.Error.Message, "confirmation") {
		t.Fatalf("Run(destructive) = %+v, ran %v", res, ran.Load())
	}
	res = r.Run(context.Background(), toolbus.Call{ID: "2", Key: "k2", Tool: "wipe", Args: json.RawMessage(`{"text":"x"}`), Confirmed: true})
	if !ran.Load() || res.Status != toolbus.StatusOK {
		t.Fatalf("Run(destructive, confirmed) = %+v, ran %v", res, ran.Load())
	}
}

func TestHold(t *testing.T) {
	nop := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	build := func(p toolbus.Policy) *toolbus.Registry {
		r := registry(t, spec("wipe", toolbus.Destructive, nop), spec("change", toolbus.Mutating, nop), spec("look", toolbus.ReadOnly, nop))
		r.SetPolicy(p)
		return r
	}
	ok, bad := json.RawMessage(`{"text":"x"}`), json.RawMessage(`{"txt":"x"}`)
	for _, tt := range []struct {
		policy toolbus.Policy
		call   toolbus.Call
		want   string
	}{
		{toolbus.ConfirmDestructive, toolbus.Call{Tool: "wipe", Args: ok}, toolbus.HoldDestructive},
		{toolbus.ConfirmDestructive, toolbus.Call{Tool: "change", Args: ok}, ""},
		{toolbus.ConfirmDestructive, toolbus.Call{Tool: "change", Args: ok, AskFirst: true}, toolbus.HoldModel},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "change", Args: ok}, toolbus.HoldPolicy},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "wipe", Args: ok, AskFirst: true}, toolbus.HoldDestructive},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "look", Args: ok, AskFirst: true}, ""},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "wipe", Args: bad}, ""},   // Run reports the mistake instead
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "nothing", Args: ok}, ""}, // likewise
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "wipe", Args: ok, Allowed: []string{"look"}}, ""},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "wipe", Args: ok, Allowed: []string{}}, ""},
		{toolbus.ConfirmChanges, toolbus.Call{Tool: "wipe", Args: ok, Allowed: []string{"look", "wipe"}}, toolbus.HoldDestructive},
	} {
		if got := build(tt.policy).Hold(tt.call); got != tt.want {
			t.Errorf("policy %d: Hold(%s %s, ask %v) = %q; want %q", tt.policy, tt.call.Tool, tt.call.Args, tt.call.AskFirst, got, tt.want)
		}
	}
}

// A tool outside the person's tools is refused as denied, even confirmed,
// and the model is told which it may use; nil allows every tool.
func TestRunRefusesToolsNotAllowed(t *testing.T) {
	var ran atomic.Int32
	count := func(context.Context, json.RawMessage) (any, error) { ran.Add(1); return "done", nil }
	r := registry(t, spec("finance", toolbus.ReadOnly, count), spec("wipe", toolbus.Destructive, count), spec("look", toolbus.ReadOnly, count))
	args := json.RawMessage(`{"text":"x"}`)
	for i, c := range []toolbus.Call{
		{Tool: "finance", Allowed: []string{"look"}},
		{Tool: "wipe", Allowed: []string{"look"}, Confirmed: true},
		{Tool: "finance", Allowed: []string{}},
	} {
		c.ID, c.Key, c.Args = "c", fmt.Sprintf("k%d", i), args
		res := r.Run(context.Background(), c)
		if res.Status != toolbus.StatusDenied || res.Error.Code != toolbus.CodeNotAllowed || !strings.Contains(res.Error.Message, c.Tool+" is not among") {
			t.Fatalf("Run(%+v) = %+v; want denied", c, res)
		}
		if want := strings.Join(c.Allowed, ", "); len(c.Allowed) > 0 && !strings.HasSuffix(res.Error.Message, ": "+want) || len(c.Allowed) == 0 && !strings.HasSuffix(res.Error.Message, ": none") {
			t.Errorf("message %q does not list only the allowed tools", res.Error.Message)
		}
	}
	if ran.Load() != 0 {
		t.Fatalf("%d refused calls ran", ran.Load())
	}
	unknown := r.Run(context.Background(), toolbus.Call{ID: "c", Key: "k9", Tool: "nope", Args: args, Allowed: []string{"look"}})
	if unknown.Error == nil || unknown.Error.Code != toolbus.CodeUnknownTool || strings.Contains(unknown.Error.Message, "finance") {
		t.Fatalf("unknown tool = %+v; must not name tools the person may not use", unknown)
	}
	for i, c := range []toolbus.Call{{Tool: "look", Allowed: []string{"look"}}, {Tool: "finance"}} {
		c.ID, c.Key, c.Args = "c", fmt.Sprintf("ok%d", i), args
		if res := r.Run(context.Background(), c); res.Status != toolbus.StatusOK {
			t.Fatalf("Run(%+v) = %+v; want ok", c, res)
		}
	}
}

func TestArgsHashIgnoresOrderAndSpacing(t *testing.T) {
	a := toolbus.ArgsHash(json.RawMessage(`{"a": 1, "b": "x"}`))
	if b := toolbus.ArgsHash(json.RawMessage(`{"b":"x","a":1}`)); a != b || len(a) != 64 {
		t.Fatalf("ArgsHash differs for the same arguments: %s %s", a, b)
	}
	if c := toolbus.ArgsHash(json.RawMessage(`{"a":2,"b":"x"}`)); c == a {
		t.Fatal("ArgsHash is the same for other arguments")
	}
}

// Arguments are the same when their numbers have the same value, however
// written (PostgreSQL's jsonb writes 1e2 back as 100), and different when
// their values differ, even where a float64 cannot tell them apart.
func TestArgsHashComparesNumbersExactly(t *testing.T) {
	hash := func(s string) string { return toolbus.ArgsHash(json.RawMessage(s)) }
	for _, same := range [][]string{
		{`{"n":100}`, `{"n":1e2}`, `{"n":100.0}`, `{"n":1.00E+2}`, `{"n":10000e-2}`},
		{`{"n":0.1}`, `{"n":0.10}`, `{"n":1e-1}`},
		{`{"n":0}`, `{"n":-0}`, `{"n":0.0e5}`},
		{`{"n":9007199254740991}`, `{"n":9007199254740991.0}`},
		{`{"n":-9007199254740991}`, `{"n":-9.007199254740991e15}`},
		{`{"n":123456789012345678901234567890}`, `{"n":1.2345678901234567890123456789e29}`},
	} {
		for _, s := range same[1:] {
			if hash(s) != hash(same[0]) {
				t.Errorf("ArgsHash(%s) differs from ArgsHash(%s)", s, same[0])
			}
		}
	}
	for _, pair := range [][2]string{
		{`{"n":9007199254740993}`, `{"n":9007199254740992}`},
		{`{"n":-9007199254740993}`, `{"n":-9007199254740992}`},
		{`{"n":0.1}`, `{"n":0.1000000000000000000001}`},
		{`{"n":1}`, `{"n":"1"}`},
		{`{"n":1e400}`, `{"n":1e401}`},
	} {
		if hash(pair[0]) == hash(pair[1]) {
			t.Errorf("ArgsHash(%s) == ArgsHash(%s)", pair[0], pair[1])
		}
	}
	// Keys name the same call across releases: a number a float64 holds is
	// written as encoding/json writes it.
	if got, want := toolbus.Key(7123456789, 1, "t", json.RawMessage(`{"a":1.5,"b":100}`)),
		toolbus.Key(7123456789, 1, "t", json.RawMessage(`{"b":100,"a":1.5}`)); got != want {
		t.Errorf("Key differs for the same arguments")
	}
}

func TestPanickingToolFails(t *testing.T) {
	r := registry(t, spec("boom", toolbus.Mutating, func(context.Context, json.RawMessage) (any, error) { panic("oops") }))
	if res := call(r, "boom", `{"text":"x"}`); res.Status != toolbus.StatusError || !strings.Contains(res.Error.Message, "oops") {
		t.Fatalf("Run(panic) = %+v", res)
	}
}

func TestLooksLikeResult(t *testing.T) {
	if !toolbus.LooksLikeResult("  __tool_result__ calculate {}") || toolbus.LooksLikeResult("what is __tool_result__?") {
		t.Fatal("LooksLikeResult is wrong")
	}
}

// A tool that ignores its deadline does not hold the call past it.
func TestDeadlineIsEnforced(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := spec("stubborn", toolbus.Mutating, func(context.Context, json.RawMessage) (any, error) {
		<-release // ignores ctx
		return "late", nil
	})
	s.Timeout = 20 * time.Millisecond
	start := time.Now()
	res := call(registry(t, s), "stubborn", `{"text":"x"}`)
	if res.Error == nil || res.Error.Code != toolbus.CodeTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("Run = %+v after %v", res, time.Since(start))
	}
}

// A tool that changes something waits for the person when the model asks
// for confirmation; a read-only one does not need to.
func TestModelAskingForConfirmation(t *testing.T) {
	var ran atomic.Int32
	count := func(context.Context, json.RawMessage) (any, error) { ran.Add(1); return "done", nil }
	r := registry(t, spec("change", toolbus.Mutating, count), spec("look", toolbus.ReadOnly, count))
	args := json.RawMessage(`{"text":"x"}`)
	denied := r.Run(context.Background(), toolbus.Call{ID: "1", Key: "k1", Tool: "change", Args: args, AskFirst: true})
	looked := r.Run(context.Background(), toolbus.Call{ID: "2", Key: "k2", Tool: "look", Args: args, AskFirst: true})
	if denied.Status != toolbus.StatusDenied || looked.Status != toolbus.StatusOK || ran.Load() != 1 {
		t.Fatalf("mutating %s, read-only %s, ran %d", denied.Status, looked.Status, ran.Load())
	}
}

// A tool that made a file for the person returns it Attached: the model is
// shown the result alone, the file travels with the call's Result, and the
// metadata names it without its bytes.
func TestAttachedFilesTravelBesideTheResult(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n not really")
	var runs atomic.Int32
	r := registry(t, spec("draw", toolbus.ReadOnly, func(context.Context, json.RawMessage) (any, error) {
		runs.Add(1)
		return toolbus.Attached{Result: map[string]any{"drawn": true},
			Files: []ryo.Attachment{{Name: "chart.png", MimeType: "image/png", Caption: "Sales", Data: png}}}, nil
	}))
	res := call(r, "draw", `{"text":"x"}`)
	if res.Status != toolbus.StatusOK || string(res.Output) != `{"drawn":true}` {
		t.Fatalf("Run = %+v; want the result without the file", res)
	}
	if len(res.Attachments) != 1 || res.Attachments[0].Caption != "Sales" || string(res.Attachments[0].Data) != string(png) {
		t.Fatalf("attachments = %+v", res.Attachments)
	}
	if text := res.Text(); strings.Contains(text, "PNG") || strings.Contains(text, "chart.png") {
		t.Fatalf("the model is shown %s; want no file in it", text)
	}
	var meta struct {
		Attachments []map[string]any `json:"attachments"`
	}
	if json.Unmarshal(res.Metadata(), &meta); len(meta.Attachments) != 1 || meta.Attachments[0]["bytes"] != float64(len(png)) ||
		meta.Attachments[0]["mime_type"] != "image/png" {
		t.Fatalf("metadata = %s", res.Metadata())
	}
	// Its files are not kept in memory: the same call makes them again.
	if again := call(r, "draw", `{"text":"x"}`); runs.Load() != 2 || len(again.Attachments) != 1 {
		t.Fatalf("second run: %d runs, %d files", runs.Load(), len(again.Attachments))
	}
}

// A file that could not be delivered fails the call, as the tool's fault.
func TestAttachedFilesAreChecked(t *testing.T) {
	ok := ryo.Attachment{Name: "a.png", MimeType: "image/png", Data: []byte{1}}
	for name, files := range map[string][]ryo.Attachment{
		"empty":     {{Name: "a.png", MimeType: "image/png"}},
		"no type":   {{Name: "a.png", Data: []byte{1}}},
		"no name":   {{MimeType: "image/png", Data: []byte{1}}},
		"too big":   {{Name: "a.png", MimeType: "image/png", Data: make([]byte, ryo.MaxAttachmentBytes+1)}},
		"too many":  {ok, ok, ok, ok, ok},
		"a path":    {{Name: "../a.png", MimeType: "image/png", Data: []byte{1}}},
		"long note": {{Name: "a.png", MimeType: "image/png", Data: []byte{1}, Caption: strings.Repeat("x", 1025)}},
	} {
		r := registry(t, spec("draw", toolbus.ReadOnly, func(context.Context, json.RawMessage) (any, error) {
			return toolbus.Attached{Result: 1, Files: files}, nil
		}))
		res := call(r, "draw", `{"text":"x"}`)
		if res.Status != toolbus.StatusError || res.Error.Code != toolbus.CodeFailed || len(res.Attachments) != 0 {
			t.Errorf("%s: Run = %+v; want a failure of the tool", name, res)
		}
	}
}

// A read-only tool that reaches its deadline is not tried again: the
// person would wait twice the deadline, and the service be asked twice.
func TestTimeoutIsNotRetried(t *testing.T) {
	var ran atomic.Int32
	s := spec("hanging", toolbus.ReadOnly, func(ctx context.Context, _ json.RawMessage) (any, error) {
		ran.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s.Timeout = 20 * time.Millisecond
	res := call(registry(t, s), "hanging", `{"text":"x"}`)
	if res.Error == nil || res.Error.Code != toolbus.CodeTimeout || res.Attempts != 1 || ran.Load() != 1 {
		t.Fatalf("Run = %+v, ran %d times; want one timeout", res, ran.Load())
	}
}

func TestDoingOfSaysItPerCall(t *testing.T) {
	s := toolbus.Spec{Doing: "🔎 searching the web", DoingAbout: "🔎 searching the web for %s", DoingWith: func(args json.RawMessage) string {
		var a struct{ Query string }
		_ = json.Unmarshal(args, &a)
		return a.Query
	}}
	if doing, subject := s.DoingOf(json.RawMessage(`{"query":"kernel 6.12"}`)); doing != "🔎 searching the web for %s" || subject != "kernel 6.12" {
		t.Errorf("DoingOf(query) = %q, %q", doing, subject)
	}
	if doing, subject := s.DoingOf(json.RawMessage(`{}`)); doing != "🔎 searching the web" || subject != "" {
		t.Errorf("DoingOf(no query) = %q, %q; want Doing", doing, subject)
	}
	if doing, subject := (toolbus.Spec{Doing: "📊 drawing"}).DoingOf(nil); doing != "📊 drawing" || subject != "" {
		t.Errorf("DoingOf without DoingWith = %q, %q", doing, subject)
	}
}
