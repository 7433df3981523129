package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/stttest"
)

// A stop while a voice note is being transcribed takes effect at once:
// the transcription is called off, the model is not asked, and the
// status message says the answer stopped before anything was written.
func TestStopWhileAVoiceNoteIsTranscribed(t *testing.T) {
	h, stt := voiceHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	stt.Answer(stttest.Answer{Hold: hold})
	h.start()
	q := h.tg.SendRecording(dm, alice, voice(4), "")
	status := h.stopButton(dm, q.ID, "🎙 listening")
	if a := h.pressAnswer(h.press(dm, alice, status, "⏹")); a.Text != "⏹ Stopping — I'll keep what I wrote so far." {
		t.Fatalf("the stop was answered %+v", a)
	}
	h.waitWithin(10*time.Second, "the stop shown", func() bool {
		return strings.Contains(h.message(dm, status.ID).Text, "⏹ Stopped before I wrote anything.")
	})
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times after a stop during the transcription", n)
	}
}
