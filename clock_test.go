package ryo_test

import (
	"context"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
)

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 4: 4 * time.Second, 20: 30 * time.Second} {
		if got := ryo.Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %v; want %v", n, got, want)
		}
	}
}

// Sleep waits on the clock it is given, and ends early with its context.
func TestSleep(t *testing.T) {
	c := clocktest.New(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	slept := make(chan bool)
	go func() { slept <- ryo.Sleep(context.Background(), c, time.Minute) }()
	if err := c.WaitArmed(context.Background(), c.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	if !<-slept {
		t.Fatal("Sleep did not wait in full")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ryo.Sleep(ctx, c, time.Hour) {
		t.Fatal("Sleep waited past its context")
	}
}
