package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

var (
	qwen  = ryo.InstalledModel{Name: "qwen3:8b", Size: 5225388164, Family: "qwen3", ParameterSize: "8.2B", Quantization: "Q4_K_M", Capabilities: []ryo.Capability{ryo.CanComplete, ryo.CanUseTools, ryo.CanThink}}
	llama = ryo.InstalledModel{Name: "llama3.2:latest", Size: 2019393189, Family: "llama", ParameterSize: "3.2B", Capabilities: []ryo.Capability{ryo.CanComplete}}
	nomic = ryo.InstalledModel{Name: "nomic-embed-text:latest", Size: 274302450, Family: "nomic-bert", ParameterSize: "137M", Capabilities: []ryo.Capability{ryo.CanEmbed}}
)

// The header says which model answers here and why, and what was chosen
// but is gone.
func TestModelHeader(t *testing.T) {
	list := []ryo.InstalledModel{qwen, llama, nomic}
	cases := []struct {
		choice memory.ModelChoice
		listed bool
		want   []string
	}{
		{memory.ModelChoice{}, true, []string{"Answering here: llama3.2 — the default (RYO_MODEL)."}},
		{memory.ModelChoice{Chat: "qwen3:8b"}, true, []string{"Answering here: qwen3:8b — chosen for this chat by an admin."}},
		{memory.ModelChoice{Default: "qwen3:8b"}, true, []string{"Answering here: qwen3:8b — the default, chosen by an admin."}},
		{memory.ModelChoice{Chat: "gone:1b", Default: "qwen3:8b"}, true, []string{"Answering here: qwen3:8b — the default, chosen by an admin.",
			"⚠️ gone:1b was chosen for this chat but is no longer installed, so the default answers instead."}},
		{memory.ModelChoice{Default: "gone:1b"}, true, []string{"Answering here: llama3.2 — the default (RYO_MODEL).",
			"⚠️ gone:1b was chosen as the default but is no longer installed, so RYO_MODEL (llama3.2) is the default instead."}},
		{memory.ModelChoice{Chat: "gone:1b"}, false, []string{"Answering here: gone:1b — chosen for this chat by an admin."}},
	}
	for _, tc := range cases {
		s := modelState{choice: tc.choice, listed: tc.listed, def: "llama3.2"}
		if tc.listed {
			s.list = list
		}
		if tc.choice.Default != "" && s.installed(tc.choice.Default) {
			s.def = tc.choice.Default
		}
		s.answering = s.def
		if tc.choice.Chat != "" && s.installed(tc.choice.Chat) {
			s.answering = tc.choice.Chat
		}
		got := s.header(lang.Printer{}, "llama3.2")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: header = %q; want %q", tc.choice, got, w)
			}
		}
		if n := strings.Count(got, "\n") + 1; n != len(tc.want) {
			t.Errorf("%+v: header has %d lines; want %d:\n%s", tc.choice, n, len(tc.want), got)
		}
	}
}

func TestModelLine(t *testing.T) {
	s := modelState{answering: "qwen3:8b", def: "llama3.2"}
	for m, want := range map[*ryo.InstalledModel]string{
		&qwen:                  "• qwen3:8b — 5.2 GB · qwen3 · 8.2B · 🛠 tools · 💭 thinking ← answers here",
		&llama:                 "• llama3.2:latest — 2.0 GB · llama · 3.2B ⭐ default",
		&nomic:                 "• nomic-embed-text:latest — 0.3 GB · nomic-bert · 137M · 🔢 embedding",
		{Name: "odd", Size: 1}: "• odd — 0.0 GB · ❔ capabilities unknown",
	} {
		if got := s.modelLine(lang.Printer{}, *m); got != want {
			t.Errorf("modelLine = %q; want %q", got, want)
		}
	}
}

// Only a model that answers can be chosen; one not trained for tools is
// chosen with a warning short enough for a press's alert.
func TestUnchoosable(t *testing.T) {
	for m, want := range map[*ryo.InstalledModel]string{
		&qwen: "", &llama: "", &nomic: "is an embedding model",
		{Name: "odd"}: "can't tell what odd can do",
		{Name: "insert-only", Capabilities: []ryo.Capability{"insert"}}: "cannot answer",
	} {
		if got := unchoosable(lang.Printer{}, *m); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("unchoosable(lang.Printer{}, %s) = %q; want %q", m.Name, got, want)
		}
	}
	if w := noToolsWarning(lang.Printer{}, strings.Repeat("很长的名字", 30)); len([]rune(w)) > 200 {
		t.Errorf("the warning is %d characters: too long for an alert", len([]rune(w)))
	}
}

// A card's buttons carry at most 64 bytes, whatever the model's name.
func TestModelCardButtons(t *testing.T) {
	long := ryo.InstalledModel{Name: "hf.co/" + strings.Repeat("x", 200) + ":Q4_K_M", Capabilities: []ryo.Capability{ryo.CanComplete}}
	view := newActionID()
	at := func(n int, screen string) string { return pagePrefix + view + ":" + fmt.Sprint(n) + ":" + screen }
	p := modelState{}.card(lang.Printer{}, long, at)
	for _, b := range p.buttons {
		if len(b.Data) > 64 {
			t.Errorf("button %q carries %d bytes", b.Text, len(b.Data))
		}
	}
}

type runFunc func(ctx context.Context, in agent.Input) (agent.Output, error)

func (f runFunc) Run(ctx context.Context, in agent.Input) (agent.Output, error) { return f(ctx, in) }

// A chosen model no longer installed gives way to the next, logged once
// for each chat and model until it answers there again; a turn that ran a
// tool, or failed otherwise, is not asked again.
func TestAnswerWithPassesOverAMissingModel(t *testing.T) {
	installed := map[string]bool{"llama3.2": true}
	var asked []string
	missing := &ryo.Error{Code: ryo.ENOTFOUND, Of: ryo.Model, Err: errors.New("ollama: HTTP 404: model 'qwen3:8b' not found")}
	b := &Bot{model: "llama3.2", agent: runFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		asked = append(asked, in.Model)
		if !installed[in.Model] {
			return agent.Output{}, fmt.Errorf("ask the model: %w", missing)
		}
		return agent.Output{Text: "hi"}, nil
	})}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	turn := func(chat int64) string {
		t.Helper()
		ran := false
		tk := talk{chat: ryo.Chat{ID: chat}, models: []string{"qwen3:8b", "mistral:7b", "llama3.2"}}
		out, err := b.answerWith(context.Background(), log, &tk, agent.Input{}, &ran)
		if err != nil || out.Text != "hi" {
			t.Fatalf("answerWith = %+v, %v; want an answer", out, err)
		}
		return tk.asked()
	}
	count := func(model string) int {
		n := 0
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, "no longer installed") && strings.Contains(line, " model="+model+" ") {
				n++
			}
		}
		return n
	}
	group, other := int64(-1001234567890), int64(-1009876543210)
	turn(group)
	if got := turn(group); got != "llama3.2" {
		t.Fatalf("answered by %q; want llama3.2", got)
	}
	if want := "[qwen3:8b mistral:7b llama3.2 qwen3:8b mistral:7b llama3.2]"; fmt.Sprint(asked) != want {
		t.Fatalf("asked %v; want %s", asked, want)
	}
	if count("qwen3:8b") != 1 || count("mistral:7b") != 1 {
		t.Fatalf("over two turns: want each missing model logged once:\n%s", logs.String())
	}
	turn(other)
	if count("qwen3:8b") != 2 {
		t.Fatalf("another chat: want its own log line:\n%s", logs.String())
	}
	installed["qwen3:8b"] = true
	if got := turn(group); got != "qwen3:8b" {
		t.Fatalf("installed again: answered by %q", got)
	}
	delete(installed, "qwen3:8b")
	turn(group)
	if count("qwen3:8b") != 3 {
		t.Fatalf("a model gone again after it answered: want it logged again:\n%s", logs.String())
	}
	asked = nil
	ran := true
	tk := talk{chat: ryo.Chat{ID: group}, models: []string{"qwen3:8b", "llama3.2"}}
	if _, err := b.answerWith(context.Background(), log, &tk, agent.Input{}, &ran); !ryo.ModelMissing(err) || len(asked) != 1 {
		t.Fatalf("after a tool ran: %v, asked %v; want the error, asked once", err, asked)
	}
}
