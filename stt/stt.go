package stt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Audio is one recording to transcribe.
type Audio struct {
	Data     []byte
	Name     string        // a file name; its extension tells the server the format
	MimeType string        // as Telegram gives it, such as audio/ogg
	Duration time.Duration // as Telegram gives it; 0 when unknown
	Language string        // an ISO-639-1 hint such as "en"; "" lets the server detect it
}

// Transcript is what was heard.
type Transcript struct {
	Text     string        // cleaned: one line of visible characters, at most MaxText
	Language string        // as the server names it ("english", "en"); "" when it does not say
	Duration time.Duration // as the server measured it, or the Audio's own
}

// Transcriber turns speech into text.
type Transcriber interface {
	Transcribe(ctx context.Context, a Audio) (Transcript, error)
}

// Bounds of a recording.
const (
	// MaxBytes is the largest file a bot may download from Telegram
	// (getFile's limit), and so the largest recording sent to a server.
	MaxBytes = 20 << 20
	// DefaultMaxDuration is the longest recording transcribed unless the
	// owner says otherwise.
	DefaultMaxDuration = 10 * time.Minute
)

// What can go wrong, as far as the person is concerned. Every error of
// this package wraps one of them; errors.As to *Error gives the details.
var (
	ErrTooLong     = errors.New("the recording is longer than ryo transcribes")
	ErrTooLarge    = errors.New("the file is larger than ryo transcribes")
	ErrUnavailable = errors.New("the transcription server is unavailable")
	ErrTimeout     = errors.New("the transcription server took too long")
	ErrRateLimited = errors.New("the transcription server asks ryo to slow down")
	ErrUnsupported = errors.New("the transcription server does not take this kind of audio")
	ErrRefused     = errors.New("the transcription server refuses ryo as it is set up")
	ErrBadAnswer   = errors.New("the transcription server's answer cannot be read")
	ErrNoSpeech    = errors.New("no speech was heard in the recording")
)

// Error is a failure to transcribe. Detail is safe to log and to show to
// an owner: it never holds the key or the server's address.
type Error struct {
	Kind       error         // one of the Err values above
	Status     int           // the HTTP status; 0 when there was no answer
	RetryAfter time.Duration // when the server says how long to wait; 0 when it does not
	Detail     string
}

func (e *Error) Error() string {
	s := e.Kind.Error()
	if e.Status != 0 {
		s += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *Error) Unwrap() error { return e.Kind }

// Limits bound the recordings transcribed.
type Limits struct {
	MaxDuration time.Duration // DefaultMaxDuration when 0
	MaxBytes    int64         // MaxBytes when 0
}

// Check refuses a recording that is too long or too large before it is
// downloaded, from what Telegram says of it: its duration and file size,
// either 0 when unknown.
func (l Limits) Check(duration time.Duration, size int64) error {
	maxDur, maxSize := l.MaxDuration, l.MaxBytes
	if maxDur <= 0 {
		maxDur = DefaultMaxDuration
	}
	if maxSize <= 0 || maxSize > MaxBytes {
		maxSize = MaxBytes
	}
	if duration > maxDur {
		return &Error{Kind: ErrTooLong, Detail: fmt.Sprintf("%s, and the limit is %s", span(duration), span(maxDur))}
	}
	if size > maxSize {
		return &Error{Kind: ErrTooLarge, Detail: fmt.Sprintf("%s, and the limit is %s", megabytes(size), megabytes(maxSize))}
	}
	return nil
}

// Check is Limits{}.Check: the default bounds.
func Check(duration time.Duration, size int64) error { return Limits{}.Check(duration, size) }

// span shows a duration as people say it: 45s, 3m 20s, 10m.
func span(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return strconv.Itoa(int(d.Seconds())) + "s"
	}
	s := strconv.Itoa(int(d.Minutes())) + "m"
	if sec := int(d.Seconds()) % 60; sec != 0 {
		s += " " + strconv.Itoa(sec) + "s"
	}
	return s
}

// megabytes shows a size in MB with one decimal where it matters.
func megabytes(n int64) string {
	s := strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " MB"
}
