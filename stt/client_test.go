package stt

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/stttest"
)

// ogg is a few bytes that stand for a voice note: the fakes do not decode
// audio, as servers on ffmpeg do.
var ogg = append([]byte("OggS\x00\x02"), bytes.Repeat([]byte{0x4f}, 4000)...)

func newClient(t *testing.T, s *stttest.Server, cfg Config) *Client {
	t.Helper()
	if cfg.URL == nil {
		cfg.URL = mustURL(t, s.URL())
	}
	return New(cfg)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestTranscribeVoiceNote(t *testing.T) {
	s := stttest.NewServer(stttest.Options{Key: "sk-test-key"})
	defer s.Close()
	s.Answer(stttest.Answer{Text: "  What's on my\ncalendar\u202e tomorrow? ", Duration: 3.5, Language: "english\u200b\n"})
	c := newClient(t, s, Config{APIKey: "sk-test-key"})
	got, err := c.Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg", Duration: 4 * time.Second, Language: "en-US"})
	if err != nil {
		t.Fatal(err)
	}
	want := Transcript{Text: "What's on my calendar tomorrow?", Language: "english", Duration: 3500 * time.Millisecond}
	if got != want {
		t.Errorf("transcript = %+v, want %+v", got, want)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/audio/transcriptions" || r.Model != "whisper-1" || r.ResponseFormat != "verbose_json" || r.Language != "en" ||
		r.Temperature != "0" || r.FileName != "audio.ogg" || r.FileType != "audio/ogg" || !bytes.Equal(r.File, ogg) || r.Authorization != "Bearer sk-test-key" {
		t.Errorf("request = %+v", r)
	}
}

func TestTranscribeOtherServers(t *testing.T) {
	cpp := stttest.NewServer(stttest.Options{WhisperCPP: true})
	defer cpp.Close()
	speaches := stttest.NewServer(stttest.Options{Language: "de"})
	defer speaches.Close()
	for _, tc := range []struct {
		name, url, model, path, lang string
		server                       *stttest.Server
	}{
		{"whisper.cpp's /inference", cpp.Root() + "/inference", "", "/inference", "english", cpp},
		{"a full endpoint", speaches.URL() + "/audio/transcriptions/", "Systran/faster-whisper-small", "/v1/audio/transcriptions", "de", speaches},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{URL: mustURL(t, tc.url), Model: tc.model})
			got, err := c.Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != "hello" || got.Language != tc.lang {
				t.Errorf("transcript = %+v", got)
			}
			reqs := tc.server.Requests()
			r := reqs[len(reqs)-1]
			if r.Path != tc.path || (tc.model != "" && r.Model != tc.model) {
				t.Errorf("request = %s model %q", r.Path, r.Model)
			}
		})
	}
}

func TestTranscribeAsksForJSONWhenVerboseIsRefused(t *testing.T) {
	s := stttest.NewServer(stttest.Options{JSONOnly: true})
	defer s.Close()
	c := newClient(t, s, Config{Model: "gpt-4o-transcribe"})
	got, err := c.Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg", Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got != (Transcript{Text: "hello", Duration: 2 * time.Second}) {
		t.Errorf("transcript = %+v", got)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].ResponseFormat != "verbose_json" || reqs[1].ResponseFormat != "json" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestEndpoint(t *testing.T) {
	for base, want := range map[string]string{
		"http://whisper:8080/v1":                       "http://whisper:8080/v1/audio/transcriptions",
		"http://whisper:8080/v1/":                      "http://whisper:8080/v1/audio/transcriptions",
		"http://whisper:8080":                          "http://whisper:8080/audio/transcriptions",
		"http://whisper:8080/v1/audio/transcriptions":  "http://whisper:8080/v1/audio/transcriptions",
		"http://whisper:8080/v1/audio/transcriptions/": "http://whisper:8080/v1/audio/transcriptions",
		"http://whisper:8080/inference":                "http://whisper:8080/inference",
		"https://stt.example/api/v1?tenant=a":          "https://stt.example/api/v1/audio/transcriptions?tenant=a",
	} {
		if got := endpoint(mustURL(t, base)); got != want {
			t.Errorf("endpoint(%s) = %s, want %s", base, got, want)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ name, mime, want, wantType string }{
		{"", "audio/ogg", "audio.ogg", "audio/ogg"},                       // a voice note
		{"", "video/mp4", "audio.mp4", "video/mp4"},                       // a video note
		{"Song Title.MP3", "audio/mpeg", "audio.mp3", "audio/mpeg"},       // an audio file: its name stays home
		{"memo.m4a", "", "audio.m4a", "audio/mp4"},                        // known by its name alone
		{"memo.opus", "audio/opus", "audio.ogg", "audio/ogg"},             // .opus is not taken by the API; Ogg is
		{"x.bin", "audio/x-wav", "audio.wav", "audio/wav"},                // known by its type
		{"rec", "audio/ogg; codecs=opus", "audio.ogg", "audio/ogg"},       // with parameters
		{"track.aiff", "audio/aiff", "audio", "application/octet-stream"}, // unknown: the server decides
	} {
		name, typ := fileName(Audio{Name: tc.name, MimeType: tc.mime})
		if name != tc.want || typ != tc.wantType {
			t.Errorf("fileName(%q, %q) = %q, %q; want %q, %q", tc.name, tc.mime, name, typ, tc.want, tc.wantType)
		}
	}
}

func TestLanguageHint(t *testing.T) {
	for hint, want := range map[string]string{"en": "en", "pt-BR": "pt", "zh_Hans": "zh", "EN": "en", "": "", "eng": "", "e1": "", "english": ""} {
		if got := language(hint); got != want {
			t.Errorf("language(%q) = %q, want %q", hint, got, want)
		}
	}
}

func TestTranscribeFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer stttest.Answer
		audio  Audio
		kind   error
		status int
		wait   time.Duration
	}{
		{"server error", stttest.Answer{Status: 500, Message: "CUDA out of memory"}, Audio{}, ErrUnavailable, 500, 0},
		{"overloaded", stttest.Answer{Status: 503, RetryAfter: "30"}, Audio{}, ErrUnavailable, 503, 30 * time.Second},
		{"rate limited", stttest.Answer{Status: 429, RetryAfter: "7", Message: "Rate limit reached"}, Audio{}, ErrRateLimited, 429, 7 * time.Second},
		{"rate limited, no wait said", stttest.Answer{Status: 429}, Audio{}, ErrRateLimited, 429, 0},
		{"rate limited, wait past belief", stttest.Answer{Status: 429, RetryAfter: "99999999999"}, Audio{}, ErrRateLimited, 429, 0},
		{"a format it does not take", stttest.Answer{}, Audio{MimeType: "audio/aiff"}, ErrUnsupported, 400, 0},
		{"ffmpeg cannot read it", stttest.Answer{Status: 500, Message: "ffmpeg: Invalid data found when processing input"}, Audio{}, ErrUnsupported, 500, 0},
		{"speaches' decoding error", stttest.Answer{Status: 422, Body: `{"detail":[{"loc":["body","file"],"msg":"Failed to decode audio"}]}`}, Audio{}, ErrUnsupported, 422, 0},
		{"whisper.cpp's error with 200", stttest.Answer{Body: `{"error":"failed to read WAV file"}`}, Audio{}, ErrUnsupported, 0, 0},
		{"another refusal", stttest.Answer{Status: 400, Message: "model 'large-v9' is not installed"}, Audio{}, ErrRefused, 400, 0},
		{"too large for the server", stttest.Answer{Status: 413}, Audio{}, ErrTooLarge, 413, 0},
		{"gateway timeout", stttest.Answer{Status: 504, Body: "<html>504</html>"}, Audio{}, ErrTimeout, 504, 0},
		{"malformed JSON", stttest.Answer{Body: `{"text": "hel`}, Audio{}, ErrBadAnswer, 0, 0},
		{"JSON without text", stttest.Answer{Body: `{"segments": []}`}, Audio{}, ErrBadAnswer, 0, 0},
		{"a huge answer", stttest.Answer{Huge: maxAnswer + 10}, Audio{}, ErrBadAnswer, 0, 0},
		{"silence", stttest.Answer{Text: " [BLANK_AUDIO]"}, Audio{}, ErrNoSpeech, 0, 0},
		{"music only", stttest.Answer{Text: "♪ ♪ ♪"}, Audio{}, ErrNoSpeech, 0, 0},
		{"nothing", stttest.Answer{Text: ""}, Audio{}, ErrNoSpeech, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stttest.NewServer(stttest.Options{})
			defer s.Close()
			s.Answer(tc.answer)
			a := tc.audio
			a.Data = ogg
			if a.MimeType == "" {
				a.MimeType = "audio/ogg"
			}
			_, err := newClient(t, s, Config{}).Transcribe(context.Background(), a)
			var e *Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &e) {
				t.Fatalf("err = %v, want %v", err, tc.kind)
			}
			if e.Status != tc.status || e.RetryAfter != tc.wait {
				t.Errorf("status %d, retry after %s; want %d, %s (%v)", e.Status, e.RetryAfter, tc.status, tc.wait, err)
			}
		})
	}
}

func TestTranscribeMisconfigured(t *testing.T) {
	s := stttest.NewServer(stttest.Options{Key: "right-key"})
	defer s.Close()
	for _, tc := range []struct {
		name, url string
		key       ryo.Secret
		want      string
	}{
		{"wrong key", s.URL(), "wrong-key", "RYO_STT_API_KEY"},
		{"wrong path", s.Root() + "/api", "right-key", "RYO_STT_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Config{URL: mustURL(t, tc.url), APIKey: tc.key})
			_, err := c.Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrRefused naming %s", err, tc.want)
			}
		})
	}
}

func TestTranscribeTimeout(t *testing.T) {
	s := stttest.NewServer(stttest.Options{})
	defer s.Close()
	hold := make(chan struct{})
	defer close(hold)
	arrived := make(chan struct{})
	s.Answer(stttest.Answer{Hold: hold}, stttest.Answer{Hold: hold, Arrived: arrived})
	c := newClient(t, s, Config{Timeout: 50 * time.Millisecond})
	_, err := c.Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want ErrTimeout", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err = c.Transcribe(ctx, Audio{Data: ogg, MimeType: "audio/ogg"})
	var e *Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &e) {
		t.Errorf("err = %v, want the caller's cancellation", err)
	}
}

func TestTranscribeServerGone(t *testing.T) {
	s := stttest.NewServer(stttest.Options{})
	u := s.URL()
	s.Close()
	_, err := New(Config{URL: mustURL(t, u)}).Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("err = %v, want ErrUnavailable saying connection refused, without the address", err)
	}
}

func TestSecretsNeverInErrors(t *testing.T) {
	s := stttest.NewServer(stttest.Options{})
	defer s.Close()
	s.Answer(stttest.Answer{Status: 400, Message: "model not found for key sk-live-12345 via user owner:hunter22"})
	u := mustURL(t, s.URL())
	u.User = url.UserPassword("owner", "hunter22")
	_, err := New(Config{URL: u, APIKey: "sk-live-12345"}).Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
	if err == nil {
		t.Fatal("no error")
	}
	for _, secret := range []string{"sk-live-12345", "hunter22"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows %q: %v", secret, err)
		}
	}
}

func TestTranscribeRefusesBeforeSending(t *testing.T) {
	s := stttest.NewServer(stttest.Options{})
	defer s.Close()
	c := newClient(t, s, Config{Limits: Limits{MaxDuration: time.Minute, MaxBytes: 1000}})
	for _, tc := range []struct {
		audio Audio
		want  error
	}{
		{Audio{Data: []byte("x"), Duration: 2 * time.Minute}, ErrTooLong},
		{Audio{Data: ogg}, ErrTooLarge},
		{Audio{}, ErrNoSpeech},
	} {
		if _, err := c.Transcribe(context.Background(), tc.audio); !errors.Is(err, tc.want) {
			t.Errorf("err = %v, want %v", err, tc.want)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		limits   Limits
		duration time.Duration
		size     int64
		want     error
		text     string
	}{
		{Limits{}, 10 * time.Minute, MaxBytes, nil, ""},
		{Limits{}, 0, 0, nil, ""}, // unknown: the download and the server bound it
		{Limits{}, 10*time.Minute + time.Second, 0, ErrTooLong, "10m 1s, and the limit is 10m"},
		{Limits{}, 0, MaxBytes + 1, ErrTooLarge, "20 MB, and the limit is 20 MB"},
		{Limits{MaxDuration: 30 * time.Second}, 45 * time.Second, 0, ErrTooLong, "45s, and the limit is 30s"},
		{Limits{MaxBytes: 3 << 20}, 0, 7 << 19, ErrTooLarge, "3.5 MB, and the limit is 3 MB"},
		{Limits{MaxBytes: 1 << 40}, 0, MaxBytes + 1, ErrTooLarge, ""}, // never past Telegram's limit
	} {
		err := tc.limits.Check(tc.duration, tc.size)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) || tc.text != "" && !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%+v.Check(%s, %d) = %v, want %v %q", tc.limits, tc.duration, tc.size, err, tc.want, tc.text)
		}
	}
	if err := Check(11*time.Minute, 0); !errors.Is(err, ErrTooLong) {
		t.Errorf("Check = %v", err)
	}
}

// A server that redirects elsewhere does not get the person's recording
// sent on to a host the owner never named, nor the key; a redirect on
// the same server (FastAPI's trailing slash) is followed.
func TestRedirectToAnotherHostNotFollowed(t *testing.T) {
	elsewhere := stttest.NewServer(stttest.Options{})
	defer elsewhere.Close()
	other := strings.Replace(elsewhere.URL(), "127.0.0.1", "localhost", 1) + "/audio/transcriptions"
	named := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other, http.StatusTemporaryRedirect)
	}))
	defer named.Close()
	_, err := New(Config{URL: mustURL(t, named.URL+"/v1"), APIKey: "sk-redirected-key"}).Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
	if n := len(elsewhere.Requests()); n != 0 {
		t.Fatalf("the recording was sent on to another host %d times", n)
	}
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "RYO_STT_URL") || strings.Contains(err.Error(), "localhost") {
		t.Fatalf("err = %v, want ErrRefused naming RYO_STT_URL, without the address", err)
	}

	var slash *httptest.Server
	slash = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, slash.URL+r.URL.Path+"/", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer sk-same-key" {
			http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"hello there"}`))
	}))
	defer slash.Close()
	heard, err := New(Config{URL: mustURL(t, slash.URL+"/v1"), APIKey: "sk-same-key"}).Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
	if err != nil || heard.Text != "hello there" {
		t.Fatalf("through a redirect on the same server: %+v, %v", heard, err)
	}
}

// A connection reset mid-answer, and an HTML error page, are each one
// failure the person can be told of, without the server's address.
func TestAnswerBrokenOffOrHTML(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    error
	}{
		{"reset mid-body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "200")
			w.Write([]byte(`{"text":"half a sent`))
			panic(http.ErrAbortHandler)
		}, ErrUnavailable},
		{"an HTML error page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"))
		}, ErrUnavailable},
		{"an HTML page with 200", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("<!doctype html><title>Sign in</title>"))
		}, ErrBadAnswer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := httptest.NewServer(tc.handler)
			defer s.Close()
			_, err := New(Config{URL: mustURL(t, s.URL+"/v1")}).Transcribe(context.Background(), Audio{Data: ogg, MimeType: "audio/ogg"})
			if !errors.Is(err, tc.want) || strings.Contains(err.Error(), "127.0.0.1") {
				t.Fatalf("err = %v, want %v without the address", err, tc.want)
			}
		})
	}
}

// Telegram may leave out a recording's content type (a voice note's and an
// audio file's mime_type are optional) and an audio file's name: the
// recording then goes under the extension its own bytes show, which the
// API requires, and is transcribed.
func TestRecordingWithoutATypeOrName(t *testing.T) {
	s := stttest.NewServer(stttest.Options{})
	defer s.Close()
	c := newClient(t, s, Config{})
	for data, want := range map[string]string{
		string(ogg): "audio.ogg",
		"ID3\x04\x00\x00\x00\x00\x00\x00" + strings.Repeat("\xff\xfb", 200):      "audio.mp3",
		"\xff\xfb\x90\x64" + strings.Repeat("\x00", 400):                         "audio.mp3",
		"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00" + strings.Repeat("mdat", 100): "audio.m4a",
		"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00" + strings.Repeat("mdat", 100): "audio.mp4",
		"RIFF\x24\x08\x00\x00WAVEfmt " + strings.Repeat("\x00", 400):             "audio.wav",
		"fLaC\x00\x00\x00\x22" + strings.Repeat("\x00", 400):                     "audio.flac",
		"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01" + strings.Repeat("\x00", 400):     "audio.webm",
	} {
		if _, err := c.Transcribe(context.Background(), Audio{Data: []byte(data)}); err != nil {
			t.Errorf("a %s without a type or name: %v", want, err)
		}
		if reqs := s.Requests(); reqs[len(reqs)-1].FileName != want {
			t.Errorf("sent as %q; want %q", reqs[len(reqs)-1].FileName, want)
		}
	}
}
