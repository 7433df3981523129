package bot

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/stages"
	"github.com/ryo-bot/ryo/stt"
)

// Listener transcribes the recordings people send; *stt.Client is one.
type Listener interface {
	// Check refuses a recording before it is downloaded, from its
	// duration and size as Telegram tells them (0 when unknown).
	Check(duration time.Duration, size int64) error
	Transcribe(ctx context.Context, a stt.Audio) (stt.Transcript, error)
}

// What a person is told when the recording they sent cannot be heard.
// Their message is kept whatever happens.
const (
	noListener   = "I can't listen to voice messages: no transcription server is set up — an admin can name one in RYO_STT_URL. Your message is kept."
	voiceLong    = "That recording is too long for me to listen to (%s) — please send a shorter one, or write your question."
	voiceLarge   = "That recording is too large for me to listen to — please send a shorter one, or write your question."
	voiceDown    = "I can't listen to that recording just now: the transcription server is not answering. Your message is kept — please try again later."
	voiceSlow    = "I can't listen to that recording just now: the transcription server took too long. Your message is kept — please try again later."
	voiceBusy    = "The transcription server asks me to slow down — please send your recording again in %s. Your message is kept."
	voiceOdd     = "I can't listen to that recording: the transcription server does not take this kind of audio — please send an ordinary voice message, or write your question."
	voiceRefused = "I can't listen to voice messages just now: the transcription server refuses me as I am set up — an admin must check RYO_STT_URL, RYO_STT_MODEL and RYO_STT_API_KEY. Your message is kept."
	voiceGarbled = "I could not read what the transcription server made of that recording. Your message is kept — please try again later."
	voiceSilent  = "I heard no speech in that recording — please try again, or write your question."
	voiceBad     = "I could not fetch that recording from Telegram — please send it again in a moment."
)

// listening is the status line while a recording is transcribed.
const listening = "🎙 listening"

// transcribeTool names the transcription's line in the status message.
const transcribeTool = "transcribe"

// recordingOf is the recording m carries, as stored with it: a voice note,
// an audio file or a video note; false when it carries none.
func recordingOf(m *models.Message) (ryo.Media, bool) {
	switch {
	case m.Voice != nil:
		v := m.Voice
		return ryo.Media{Kind: ryo.MediaVoice, FileID: v.FileID, UniqueID: v.FileUniqueID, Size: v.FileSize,
			Duration: v.Duration, MimeType: v.MimeType}, true
	case m.Audio != nil:
		a := m.Audio
		return ryo.Media{Kind: ryo.MediaAudio, FileID: a.FileID, UniqueID: a.FileUniqueID, Size: a.FileSize,
			Duration: a.Duration, MimeType: a.MimeType, FileName: a.FileName}, true
	case m.VideoNote != nil:
		v := m.VideoNote
		return ryo.Media{Kind: ryo.MediaVideoNote, FileID: v.FileID, UniqueID: v.FileUniqueID, Size: int64(v.FileSize),
			Duration: v.Duration, MimeType: "video/mp4"}, true
	}
	return ryo.Media{}, false
}

// isRecording reports whether x is a recording to transcribe.
func isRecording(x ryo.Media) bool {
	return x.Kind == ryo.MediaVoice || x.Kind == ryo.MediaAudio || x.Kind == ryo.MediaVideoNote
}

// recordingAt is the index of the recording among the media of the
// message the turn answers, with that message's index in history; -1s
// when it carries none.
func recordingAt(history []ryo.Message, message int64) (int, int) {
	i := slices.IndexFunc(history, func(m ryo.Message) bool { return m.ID == message })
	if i < 0 {
		return -1, -1
	}
	return i, slices.IndexFunc(history[i].Media, isRecording)
}

// cannotListen is the sentence that refuses the turn's recording before
// anything is downloaded or a status message shown: no transcription
// server, or a recording longer or larger than it takes. "" when it may
// be heard, or was already.
func (b *Bot) cannotListen(ctx context.Context, log *slog.Logger, t talk) string {
	i, k := recordingAt(t.seen.history, t.message)
	if k < 0 || t.seen.history[i].Media[k].Transcript != "" {
		return ""
	}
	rec := t.seen.history[i].Media[k]
	if b.cfg.Listen == nil {
		log.InfoContext(ctx, "a recording came, but no transcription server is set up (RYO_STT_URL)", "kind", rec.Kind)
		return t.words.Sprintf(noListener)
	}
	err := b.cfg.Listen.Check(time.Duration(rec.Duration)*time.Second, rec.Size)
	if err != nil {
		log.InfoContext(ctx, "a recording is refused before it is downloaded", "kind", rec.Kind, "duration_s", rec.Duration, "file_size", rec.Size, "err", err)
		return notHeard(t.words, err)
	}
	return ""
}

// listen transcribes the recordings of what the turn answers (see
// answersOf: the message, and those its sender sent just before it, kept
// to be answered with it), each shown in the status message ("🎙
// listening…", then what was heard), and stores what was heard as the
// message's text, after its caption: what the model, recall and
// history_search read. A turn run again reuses the stored transcripts. It
// returns the sentence that ends the turn when the answered message's own
// recording cannot be heard (an earlier one's failure is logged, and it
// is left as it was); an error for shutdown, an outage of Telegram or the
// database, when the turn runs again later.
func (b *Bot) listen(ctx context.Context, log *slog.Logger, t *talk, shown *stages.Turn) (string, error) {
	i := slices.IndexFunc(t.seen.history, func(m ryo.Message) bool { return m.ID == t.message })
	if i < 0 {
		return "", nil
	}
	ours := answersOf(t.seen.history, i)
	within, cancel := t.bounded(ctx) // every recording of the turn, together, within the turn's deadline
	defer cancel()
	for j := range t.seen.history {
		if !ours(j) {
			continue
		}
		if m := t.seen.history[j]; j != i && slices.ContainsFunc(m.Media, func(x ryo.Media) bool { return x.Unheard }) {
			continue // its sender was told it could not be heard; it is not tried again on their next message
		}
		refusal, err := b.hear(ctx, within, log, t.words, &t.seen.history[j], shown)
		if err != nil {
			return "", err
		}
		if refusal != "" && j == i {
			return refusal, nil
		}
	}
	t.text = t.seen.history[i].Text
	return "", nil
}

// hear transcribes m's recording, if it has one not yet heard, within the
// deadline of within, and stores the transcript with it; see listen.
func (b *Bot) hear(ctx, within context.Context, log *slog.Logger, p lang.Printer, m *ryo.Message, shown *stages.Turn) (string, error) {
	k := slices.IndexFunc(m.Media, isRecording)
	if k < 0 || b.cfg.Listen == nil { // without a server the answered message was refused before
		return "", nil
	}
	rec := m.Media[k]
	if rec.Transcript != "" { // heard by an earlier run of the turn
		shown.Observe(ryo.Step{Kind: ryo.StepTool, Tool: transcribeTool, Doing: stt.Doing(stt.Transcript{Text: rec.Transcript})})
		shown.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: transcribeTool, Status: "ok"})
		return "", nil
	}
	if within.Err() != nil { // the turn's deadline passed with an earlier recording
		log.WarnContext(ctx, "a recording is not transcribed: the turn's deadline passed (RYO_TURN_TIMEOUT)", "message_id", m.TelegramID, "kind", rec.Kind)
		return p.Sprintf(voiceSlow), b.unheard(ctx, m, k)
	}
	shown.Observe(ryo.Step{Kind: ryo.StepTool, Tool: transcribeTool, Doing: p.Sprintf(listening)})
	began := b.cfg.Clock.Now()
	heard, err := b.transcribe(within, rec)
	if err != nil {
		if ctx.Err() != nil || ryo.IsUnavailable(err, ryo.Telegram) {
			return "", err
		}
		log.WarnContext(ctx, "cannot transcribe a recording", "message_id", m.TelegramID, "kind", rec.Kind, "duration_s", rec.Duration,
			"file_size", rec.Size, "err", err)
		shown.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: transcribeTool, Status: "failed", Took: b.cfg.Clock.Now().Sub(began)})
		return notHeard(p, err), b.unheard(ctx, m, k)
	}
	rec.Transcript = heard.Text
	media := slices.Clone(m.Media)
	media[k] = rec
	text := withTranscript(m.Text, rec)
	err = b.record(ctx, "save transcript", func(ctx context.Context) error {
		return b.db.SaveTranscript(ctx, m.ID, text, media)
	})
	if err != nil {
		return "", err
	}
	m.Text, m.Media = text, media
	shown.Observe(ryo.Step{Kind: ryo.StepTool, Tool: transcribeTool, Doing: stt.Doing(heard)})
	shown.Observe(ryo.Step{Kind: ryo.StepToolDone, Tool: transcribeTool, Status: "ok", Took: b.cfg.Clock.Now().Sub(began)})
	log.InfoContext(ctx, "recording transcribed", "message_id", m.TelegramID, "kind", rec.Kind, "duration_s", rec.Duration,
		"language", heard.Language, "chars", len([]rune(heard.Text)))
	return "", nil
}

// unheard marks m's recording k as one that could not be heard, so that
// the next message of its sender, answered with it, does not wait for it
// again; the person is told, and may send it again.
func (b *Bot) unheard(ctx context.Context, m *ryo.Message, k int) error {
	media := slices.Clone(m.Media)
	media[k].Unheard = true
	err := b.record(ctx, "mark a recording unheard", func(ctx context.Context) error {
		return b.db.SaveTranscript(ctx, m.ID, m.Text, media)
	})
	if err == nil {
		m.Media = media
	}
	return err
}

// transcribe downloads a recording within its bounds and ctx's deadline
// (the turn's), and has it transcribed. Nothing is written to disk: the
// bytes live as long as the call.
func (b *Bot) transcribe(ctx context.Context, rec ryo.Media) (stt.Transcript, error) {
	duration := time.Duration(rec.Duration) * time.Second
	if err := b.cfg.Listen.Check(duration, rec.Size); err != nil {
		return stt.Transcript{}, err
	}
	data, err := b.tg.Download(ctx, rec.FileID, stt.MaxBytes)
	if err != nil {
		return stt.Transcript{}, err
	}
	return b.cfg.Listen.Transcribe(ctx, stt.Audio{Data: data, Name: rec.FileName, MimeType: rec.MimeType, Duration: duration})
}

// withTranscript is a message's text once its recording was heard: its
// caption, if any, then the transcript, marked as one.
func withTranscript(caption string, rec ryo.Media) string {
	what := map[string]string{ryo.MediaVoice: "voice note", ryo.MediaAudio: "audio", ryo.MediaVideoNote: "video note"}[rec.Kind]
	if rec.Kind == ryo.MediaAudio && rec.FileName != "" {
		what += " " + strconv.Quote(rec.FileName)
	}
	heard := "(" + what + ", transcribed) " + rec.Transcript
	if strings.TrimSpace(caption) == "" {
		return heard
	}
	return caption + "\n\n" + heard
}

// notHeard is what the person is told when their recording could not be
// transcribed.
func notHeard(p lang.Printer, err error) string {
	var e *stt.Error
	errors.As(err, &e)
	switch {
	case errors.Is(err, stt.ErrTooLong):
		limit := p.Sprintf("longer than I take")
		if e != nil && e.Detail != "" {
			limit = e.Detail
		}
		return p.Sprintf(voiceLong, limit)
	case errors.Is(err, stt.ErrTooLarge), errors.Is(err, delivery.ErrFileTooBig):
		return p.Sprintf(voiceLarge)
	case errors.Is(err, stt.ErrUnavailable):
		return p.Sprintf(voiceDown)
	case errors.Is(err, stt.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return p.Sprintf(voiceSlow)
	case errors.Is(err, stt.ErrRateLimited):
		var after time.Duration
		if e != nil {
			after = e.RetryAfter
		}
		return p.Sprintf(voiceBusy, wait(p, after))
	case errors.Is(err, stt.ErrUnsupported):
		return p.Sprintf(voiceOdd)
	case errors.Is(err, stt.ErrRefused):
		return p.Sprintf(voiceRefused)
	case errors.Is(err, stt.ErrBadAnswer):
		return p.Sprintf(voiceGarbled)
	case errors.Is(err, stt.ErrNoSpeech):
		return p.Sprintf(voiceSilent)
	}
	return p.Sprintf(voiceBad) // Telegram refused the file: gone, or an id it no longer knows
}

// wait says how long to wait, as people say it: "a minute" when the
// server does not say.
func wait(p lang.Printer, d time.Duration) string {
	switch {
	case d <= 0:
		return p.Sprintf("a minute")
	case d <= time.Second:
		return p.Sprintf("a second")
	case d <= time.Minute:
		return p.Sprintf("%d seconds", int((d+time.Second-1)/time.Second))
	}
	return p.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
}

// isRecordingMessage reports whether m carries a recording to transcribe.
func isRecordingMessage(m *models.Message) bool {
	_, ok := recordingOf(m)
	return ok
}

// notListened ends a turn whose recording was not heard: with the
// sentence, in place of the status message, and the update done; or,
// for an error, with the status message paused and the turn left to run
// again.
func (b *Bot) notListened(ctx context.Context, t talk, shown *stages.Turn, refusal string, err error) error {
	if err != nil {
		shown.Pause(ctx)
		return err
	}
	return t.w.idle(func() error { return shown.Fail(ctx, refusal) })
}
