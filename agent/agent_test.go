package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/prompts"
)

// modelFunc is a scripted model.
type modelFunc func(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)

func (f modelFunc) Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
	return f(ctx, req)
}

var (
	bot   = ryo.User{ID: 1, FirstName: "Ryo", Username: "ryo_bot", IsBot: true}
	ann   = &ryo.User{ID: 2, FirstName: "Ann", Username: "ann"}
	bob   = &ryo.User{ID: 3, FirstName: "Bob"}
	group = ryo.Chat{ID: -5, Type: ryo.ChatSupergroup, Title: "Team"}
)

func newAgent(t *testing.T, m agent.Model) *agent.Agent {
	t.Helper()
	set, err := prompts.Load()
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	a := agent.New(m, set, berlin)
	a.Now = func() time.Time { return time.Date(2026, 11, 22, 13, 5, 0, 0, time.UTC) }
	return a
}

func groupTurn() agent.Input {
	return agent.Input{Bot: bot, Chat: group, Place: ryo.Place{ChatID: group.ID}, History: []ryo.Message{
		{Kind: ryo.KindUser, Sender: bob, Text: "lunch at noon?"},
		{Kind: ryo.KindUser, Sender: ann, Text: "@ryo_bot what did Bob ask?"},
	}}
}

func TestPromptNamesGroupSpeakersAndPutsTimeLast(t *testing.T) {
	msgs, err := newAgent(t, nil).Prompt(groupTurn())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs[1:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{
		"user: [Bob]: lunch at noon?",
		"system: Current time: Sunday, 22 November 2026, 14:05 (Europe/Berlin). The next message is from Ann (@ann).",
		"user: [Ann (@ann)]: @ryo_bot what did Bob ask?",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("prompt after the system message:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, `group chat called "Team"`) {
		t.Fatalf("system prompt = %q", msgs[0].Content)
	}
}

// The prompt of the next turn starts with the same bytes as this one, up to
// the newest message, so Ollama can reuse its cache.
func TestPromptPrefixIsStableAcrossTurns(t *testing.T) {
	a := newAgent(t, nil)
	first := groupTurn()
	second := groupTurn()
	second.History = append(second.History,
		ryo.Message{Kind: ryo.KindAssistant, Text: "Bob asked about lunch."},
		ryo.Message{Kind: ryo.KindUser, Sender: bob, Text: "thanks"})
	a.Now = func() time.Time { return time.Date(2026, 11, 22, 13, 9, 0, 0, time.UTC) }
	p1, _ := a.Prompt(first)
	p2, _ := a.Prompt(second)
	shared := len(p1) - 2 // everything before the time note
	for i := 0; i < shared; i++ {
		if p1[i] != p2[i] {
			t.Fatalf("message %d differs between turns: %q vs %q", i, p1[i].Content, p2[i].Content)
		}
	}
}

func TestPrivatePromptHasNoNames(t *testing.T) {
	in := agent.Input{Bot: bot, Chat: ryo.Chat{ID: 2, Type: ryo.ChatPrivate}, Place: ryo.Place{ChatID: 2},
		History: []ryo.Message{{Kind: ryo.KindUser, Sender: ann, Text: "hi"}}}
	msgs, _ := newAgent(t, nil).Prompt(in)
	if last := msgs[len(msgs)-1]; last.Content != "hi" {
		t.Fatalf("private message = %q; want it unprefixed", last.Content)
	}
}

func TestRunReturnsTrimmedAnswerAndStreams(t *testing.T) {
	var deltas []string
	a := newAgent(t, modelFunc(func(_ context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
		req.OnDelta("  Bob ")
		req.OnDelta("asked about lunch.\n")
		return ryo.ModelReply{Content: "  Bob asked about lunch.\n", Usage: ryo.Usage{ReplyTokens: 5}}, nil
	}))
	in := groupTurn()
	in.OnDelta = func(d string) { deltas = append(deltas, d) }
	out, err := a.Run(context.Background(), in)
	if err != nil || out.Text != "Bob asked about lunch." || out.Usage.ReplyTokens != 5 || len(deltas) != 2 {
		t.Fatalf("Run = %+v, %v, deltas %q", out, err, deltas)
	}
}

func TestRunFailures(t *testing.T) {
	unreachable := &ryo.Error{Code: ryo.EUNAVAILABLE, Message: "I can't reach the model server right now."}
	tests := []struct {
		name  string
		reply ryo.ModelReply
		err   error
		want  error
	}{
		{"empty answer", ryo.ModelReply{Content: " \n"}, nil, agent.ErrEmptyAnswer},
		{"model error passes through", ryo.ModelReply{}, unreachable, unreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, modelFunc(func(context.Context, ryo.ModelRequest) (ryo.ModelReply, error) { return tt.reply, tt.err }))
			_, err := a.Run(context.Background(), groupTurn())
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run error = %v; want %v", err, tt.want)
			}
		})
	}
}
