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
	"github.com/ryo-bot/ryo/tracing"
)

// The lines a turn logs name it (turn=), as the log handler of main adds
// to a line logged with the turn's context: here the line of a chosen
// model passed over, and of a recording nobody can hear.
func TestLinesLoggedInATurnNameTheTurn(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(tracing.Handler(slog.NewTextHandler(&logs, nil)))
	ctx := tracing.WithTurn(context.Background(), 9_007_199_254_740_993)
	missing := &ryo.Error{Code: ryo.ENOTFOUND, Of: ryo.Model, Err: errors.New("model 'qwen3:8b' not found")}
	b := &Bot{model: "llama3.2", agent: runFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
		if in.Model != "llama3.2" {
			return agent.Output{}, fmt.Errorf("ask the model: %w", missing)
		}
		return agent.Output{Text: "hi"}, nil
	})}
	ran := false
	tk := talk{chat: ryo.Chat{ID: -1001234567890}, models: []string{"qwen3:8b", "llama3.2"}}
	if _, err := b.answerWith(ctx, log, &tk, agent.Input{}, &ran); err != nil {
		t.Fatal(err)
	}
	tk = talk{message: 5}
	tk.seen.history = []ryo.Message{{ID: 5, Media: []ryo.Media{{Kind: ryo.MediaVoice, Duration: 3}}}}
	if b.cannotListen(ctx, log, tk) == "" {
		t.Fatal("a recording with no transcription server is not refused")
	}
	for _, want := range []string{"no longer installed", "no transcription server"} {
		found := false
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, want) {
				found = true
				if !strings.Contains(line, " turn=9007199254740993") {
					t.Errorf("a line of the turn does not name it: %s", line)
				}
			}
		}
		if !found {
			t.Errorf("no line says %q:\n%s", want, logs.String())
		}
	}
}
