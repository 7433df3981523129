package bot_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/stt"
	"github.com/ryo-bot/ryo/telegramtest"
)

// deadlineListener hears every recording as the same words, and tells the
// deadline it was given.
type deadlineListener struct {
	mu       sync.Mutex
	deadline time.Time
}

func (l *deadlineListener) Check(time.Duration, int64) error { return nil }

func (l *deadlineListener) Transcribe(ctx context.Context, a stt.Audio) (stt.Transcript, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deadline, _ = ctx.Deadline()
	return stt.Transcript{Text: "what is on my calendar"}, nil
}

// RYO_TURN_TIMEOUT is how long one answer may take in all: the time spent
// hearing a voice note comes out of the model's, not on top of it.
func TestOneDeadlineForTheWholeTurn(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	heard := &deadlineListener{}
	asked := make(chan time.Time, 1)
	b, err := bot.New(bot.Config{Token: token, APIURL: tg.URL(), Workers: 2, PollTimeout: 2 * time.Second,
		CallTimeout: 5 * time.Second, HistoryLimit: 10, MaxAttempts: 3, TurnTimeout: time.Hour, Listen: heard},
		slog.New(slog.NewTextHandler(&logBuffer{}, nil)), db,
		answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
			d, _ := ctx.Deadline()
			asked <- d
			return agent.Output{Text: "Nothing today."}, nil
		}), "test-model")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	tg.SendRecording(dm, alice, telegramtest.Recording{Kind: telegramtest.KindVoice, Data: []byte("OggS voice"), Duration: 3}, "")
	model := <-asked
	heard.mu.Lock()
	listened := heard.deadline
	heard.mu.Unlock()
	if listened.IsZero() || model.IsZero() {
		t.Fatalf("deadlines: transcription %v, model %v; want both bounded", listened, model)
	}
	if model.After(listened) {
		t.Fatalf("the model's deadline %v is %v after the transcription's %v; want one deadline for the whole turn",
			model, model.Sub(listened), listened)
	}
}
