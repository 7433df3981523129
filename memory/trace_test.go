package memory_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// traced stores update id of alice in the group, and a trace for it.
func traced(t *testing.T, db *memory.DB, id int64, tr memory.Trace) {
	t.Helper()
	raw := `{"update_id":` + jsonInt(id) + `,"message":{"text":"hi","chat":{"id":-1001234567890}}}`
	if _, err := db.StoreUpdates(ctx(t), []memory.InboxUpdate{{ID: id, ChatID: group.ID, Sender: alice.ID, Kind: "message",
		Raw: json.RawMessage(raw)}}); err != nil {
		t.Fatal(err)
	}
	tr.UpdateID, tr.ChatID, tr.AskerID = id, group.ID, alice.ID
	if err := db.SaveTrace(ctx(t), tr); err != nil {
		t.Fatal(err)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// A trace is kept bounded: a megabyte of result is cut to a few KB with
// its full size noted, steps past the cap are counted, not kept, and
// fields named like secrets are redacted. It reads back as written.
func TestTraceIsStoredBounded(t *testing.T) {
	db := memorytest.Open(t)
	huge := strings.Repeat("é", 512*1024) // 1 MiB, two bytes a character
	steps := []memory.TraceStep{
		{Kind: memory.TraceModel, Model: "qwen3:8b", PromptTokens: 1200, ReplyTokens: 80, TookMS: 812.5},
		{Kind: memory.TraceTool, Tool: "web_fetch", Args: `{"url":"https://news.example","api_key":"sk-live-123456"}`,
			Result: huge, Status: "ok", TookMS: 40},
	}
	for len(steps) < memory.MaxTraceSteps+7 {
		steps = append(steps, memory.TraceStep{Kind: memory.TraceModel, Repair: true, Status: "failed", Err: "bad envelope"})
	}
	const id = 9_000_000_101
	traced(t, db, id, memory.Trace{Model: "qwen3:8b", Outcome: "answered", Took: 3 * time.Second, PromptTokens: 1200,
		ReplyTokens: 80, Steps: steps})

	got, found, err := db.TraceOf(ctx(t), id)
	if err != nil || !found {
		t.Fatalf("TraceOf = %v, %v", found, err)
	}
	if len(got.Steps) != memory.MaxTraceSteps || got.StepsLeftOut != 7 {
		t.Errorf("steps = %d, left out %d; want %d and 7", len(got.Steps), got.StepsLeftOut, memory.MaxTraceSteps)
	}
	tool := got.Steps[1]
	if len(tool.Result) > memory.MaxTraceField || tool.ResultBytes != len(huge) || !strings.HasPrefix(huge, tool.Result) {
		t.Errorf("result kept %d bytes, noted %d; want at most %d of %d, cut on a character", len(tool.Result), tool.ResultBytes,
			memory.MaxTraceField, len(huge))
	}
	if strings.Contains(tool.Args, "sk-live") || !strings.Contains(tool.Args, `"api_key":"[redacted]"`) {
		t.Errorf("args = %s; want the key redacted", tool.Args)
	}
	if got.Model != "qwen3:8b" || got.Took != 3*time.Second || got.PromptTokens != 1200 || got.AskerID != alice.ID ||
		got.ChatID != group.ID || got.Steps[0].TookMS != 812.5 {
		t.Errorf("trace = %+v", got)
	}
	if _, found, err := db.TraceOf(ctx(t), id+1); err != nil || found {
		t.Errorf("an untraced turn: found %v, %v", found, err)
	}
}

// /export hands the person the traces of their turns; /forgetme deletes
// them, in groups too.
func TestTraceGoesWithThePerson(t *testing.T) {
	db := memorytest.Open(t)
	const id = 9_000_000_201
	traced(t, db, id, memory.Trace{Model: "m", Outcome: "answered",
		Steps: []memory.TraceStep{{Kind: memory.TraceTool, Tool: "calculate", Args: `{"expression":"2+2"}`, Result: "4", Status: "ok"}}})
	e, err := db.Export(ctx(t), alice.ID, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Traces) != 1 || e.Traces[0].UpdateID != id || !strings.Contains(string(e.Traces[0].Steps), "2+2") {
		t.Fatalf("export traces = %+v", e.Traces)
	}
	if _, err := db.ForgetPerson(ctx(t), alice.ID); err != nil {
		t.Fatal(err)
	}
	if _, found, err := db.TraceOf(ctx(t), id); err != nil || found {
		t.Errorf("after /forgetme: found %v, %v", found, err)
	}
}
