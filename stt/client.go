package stt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
)

// Defaults of a Config.
const (
	// DefaultModel is the name OpenAI's API gives Whisper. whisper.cpp's
	// server ignores the model field; faster-whisper-server (speaches) and
	// LocalAI want the name of a model they have, or one mapped to it.
	DefaultModel   = "whisper-1"
	DefaultTimeout = 2 * time.Minute
)

// maxAnswer is the most bytes of an answer read: a ten-minute recording's
// verbose_json, segments and all, is a few hundred kilobytes.
const maxAnswer = 4 << 20

// errTooSlow ends a request at the client's own deadline.
var errTooSlow = errors.New("no transcript in time")

// Config says where recordings are transcribed.
type Config struct {
	// URL is the API's base, such as http://whisper:8080/v1: recordings
	// are posted to URL/audio/transcriptions. An address that already
	// ends in /audio/transcriptions, or in /inference (whisper.cpp's own
	// path), is used as it is.
	URL     *url.URL
	Model   string        // DefaultModel when ""
	APIKey  ryo.Secret    // sent as a bearer token; "" sends none
	Timeout time.Duration // one recording, from sending to the last byte; DefaultTimeout when 0
	Limits  Limits
	Client  *http.Client // a client without a timeout of its own when nil
}

// Client transcribes through a server that speaks OpenAI's audio
// transcription API. It is safe for concurrent use.
type Client struct {
	cfg      Config
	endpoint string
}

// New returns a Client for cfg. cfg.URL must be set.
func New(cfg Config) *Client {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	client := *cfg.Client
	client.CheckRedirect = sameServer
	cfg.Client = &client
	return &Client{cfg: cfg, endpoint: endpoint(cfg.URL)}
}

// errElsewhere refuses a redirect to another server.
var errElsewhere = errors.New("it redirects to another server; set RYO_STT_URL to the address it redirects to")

// sameServer follows a redirect on the server RYO_STT_URL names (such as
// FastAPI's to a path with a trailing slash), and refuses one to another:
// a person's recording goes nowhere the owner did not name.
func sameServer(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("it redirects again and again")
	}
	if req.URL.Scheme != via[0].URL.Scheme || req.URL.Host != via[0].URL.Host {
		return errElsewhere
	}
	return nil
}

// endpoint is where recordings are posted, from the API's base.
func endpoint(base *url.URL) string {
	u := *base
	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(p, "/audio/transcriptions") && !strings.HasSuffix(p, "/inference") {
		p += "/audio/transcriptions"
	}
	u.Path, u.RawPath = p, ""
	return u.String()
}

// Check refuses a recording the client would refuse, before it is
// downloaded: see Limits.Check.
func (c *Client) Check(duration time.Duration, size int64) error {
	return c.cfg.Limits.Check(duration, size)
}

// Transcribe sends a to the server and returns what it heard, cleaned
// (see the package's doc). Its errors wrap one of the package's Err
// values, except when ctx ends first: then they wrap ctx's error.
func (c *Client) Transcribe(ctx context.Context, a Audio) (Transcript, error) {
	if len(a.Data) == 0 {
		return Transcript{}, &Error{Kind: ErrNoSpeech, Detail: "the recording is empty"}
	}
	if err := c.Check(a.Duration, int64(len(a.Data))); err != nil {
		return Transcript{}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errTooSlow)
	defer cancel()
	ans, err := c.ask(ctx, a, "verbose_json")
	if refusesVerbose(err) { // OpenAI's newer models answer only json; so may other servers
		ans, err = c.ask(ctx, a, "json")
	}
	if err != nil {
		return Transcript{}, err
	}
	t := Transcript{Text: clean(*ans.Text), Language: cut(clean(ans.Language), 32), Duration: a.Duration}
	if ans.Duration > 0 && ans.Duration < 24*3600 {
		t.Duration = time.Duration(ans.Duration * float64(time.Second))
	}
	if t.Text == "" {
		return t, &Error{Kind: ErrNoSpeech, Detail: "the transcript is empty"}
	}
	return t, nil
}

// refusesVerbose reports whether err is a server's refusal of
// response_format verbose_json.
func refusesVerbose(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest && e.Status != http.StatusUnprocessableEntity {
		return false
	}
	d := strings.ToLower(e.Detail)
	return strings.Contains(d, "response_format") || strings.Contains(d, "verbose_json")
}

// answer is what the servers answer, or their error: OpenAI's and LocalAI's
// {"error":{"message"}}, whisper.cpp's {"error":"…"}, FastAPI's (speaches)
// {"detail":"…"} or {"detail":[{"msg"}]}.
type answer struct {
	Text     *string         `json:"text"`
	Language string          `json:"language"`
	Duration float64         `json:"duration"`
	Error    json.RawMessage `json:"error"`
	Detail   json.RawMessage `json:"detail"`
}

// message is the error the answer carries, "" when none.
func (a answer) message() string {
	for _, raw := range []json.RawMessage{a.Error, a.Detail} {
		var s string
		var obj struct{ Message, Msg string }
		var list []struct{ Msg string }
		switch {
		case len(raw) == 0 || string(raw) == "null":
		case json.Unmarshal(raw, &s) == nil && s != "":
			return s
		case json.Unmarshal(raw, &obj) == nil && obj.Message+obj.Msg != "":
			return obj.Message + obj.Msg
		case json.Unmarshal(raw, &list) == nil && len(list) > 0:
			return list[0].Msg
		default:
			return string(raw)
		}
	}
	return ""
}

// ask posts a as a multipart form asking for format, and reads the answer.
func (c *Client) ask(ctx context.Context, a Audio, format string) (answer, error) {
	body, contentType := form(a, c.cfg.Model, format)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, body)
	if err != nil {
		return answer{}, &Error{Kind: ErrRefused, Detail: "the address RYO_STT_URL is not usable"}
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	if key := c.cfg.APIKey.Reveal(); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.cfg.Client.Do(req)
	if errors.Is(err, errElsewhere) {
		return answer{}, &Error{Kind: ErrRefused, Detail: errElsewhere.Error()}
	}
	if err != nil {
		return answer{}, transportError(ctx, err, "")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return answer{}, transportError(ctx, err, "the answer broke off: ")
	}
	if len(raw) > maxAnswer {
		return answer{}, &Error{Kind: ErrBadAnswer, Detail: "the answer is larger than 4 MB"}
	}
	var ans answer
	jsonErr := json.Unmarshal(raw, &ans)
	if err := c.failure(resp, ans, jsonErr); err != nil {
		return ans, err
	}
	return ans, nil
}

// failure is the error an answer is, or nil for a transcript.
func (c *Client) failure(resp *http.Response, ans answer, jsonErr error) error {
	status := resp.StatusCode
	msg := c.scrub(ans.message())
	e := &Error{Status: status, Detail: msg}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Detail = ErrRefused, "it refused the key; check RYO_STT_API_KEY"
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		e.Kind, e.Detail = ErrRefused, "it has no transcription API at this address; check RYO_STT_URL"
	case status == http.StatusRequestEntityTooLarge:
		e.Kind = ErrTooLarge
	case status == http.StatusTooManyRequests:
		e.Kind, e.RetryAfter = ErrRateLimited, ryo.RetryAfter(resp.Header, time.Now(), maxWait)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e.Kind = ErrTimeout
	case status >= 400 && formatProblem(msg):
		e.Kind = ErrUnsupported
	case status >= 500:
		e.Kind, e.RetryAfter = ErrUnavailable, ryo.RetryAfter(resp.Header, time.Now(), maxWait)
	case status >= 400:
		e.Kind = ErrRefused
	case status < 200 || status > 299:
		e.Kind, e.Detail = ErrBadAnswer, "an unexpected HTTP status"
	case msg != "" && ans.Text == nil: // whisper.cpp once answered its errors with 200
		e.Kind = ErrUnavailable
		if formatProblem(msg) {
			e.Kind = ErrUnsupported
		}
	case jsonErr != nil:
		e.Kind, e.Detail = ErrBadAnswer, "it is not JSON"
	case ans.Text == nil:
		e.Kind, e.Detail = ErrBadAnswer, "it holds no text"
	default:
		return nil
	}
	if e.Status < 400 {
		e.Status = 0
	}
	return e
}

// formatProblem reports whether a server's error message says it could
// not read the audio: OpenAI's "Invalid file format", whisper.cpp's
// "failed to read WAV file" or its ffmpeg's complaints, speaches' decoding
// errors. "response_format" is not about the audio.
func formatProblem(msg string) bool {
	m := strings.ReplaceAll(strings.ToLower(msg), "response_format", "")
	for _, word := range []string{"format", "decode", "decoding", "codec", "wav", "ffmpeg", "audio file", "read audio", "invalid file", "corrupt"} {
		if strings.Contains(m, word) {
			return true
		}
	}
	return false
}

// scrub makes a server's message safe to log and show: one clipped line,
// without the key or the address's password should the server echo them.
func (c *Client) scrub(msg string) string {
	secrets := []string{c.cfg.APIKey.Reveal()}
	if c.cfg.URL != nil && c.cfg.URL.User != nil {
		pass, _ := c.cfg.URL.User.Password()
		secrets = append(secrets, pass, c.cfg.URL.User.Username())
	}
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return cut(oneLine(msg), 300)
}

// transportError is a request that got no answer, said without the
// address, which may carry credentials.
func transportError(ctx context.Context, err error, prefix string) error {
	switch {
	case errors.Is(context.Cause(ctx), errTooSlow) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Kind: ErrTimeout}
	case ctx.Err() != nil:
		return fmt.Errorf("transcribe: %w", ctx.Err())
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		msg = "connection refused"
	case strings.Contains(msg, "no such host"):
		msg = "unknown host"
	}
	return &Error{Kind: ErrUnavailable, Detail: prefix + cut(msg, 120)}
}

// audioTypes are the extensions servers read the kind of audio from, and
// the content type each is sent with. OpenAI's API goes by the file
// name's extension and takes flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg,
// wav and webm; servers on ffmpeg read any of them.
var audioTypes = map[string]string{
	"ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg", "mp3": "audio/mpeg", "mpga": "audio/mpeg", "mpeg": "audio/mpeg",
	"m4a": "audio/mp4", "mp4": "video/mp4", "wav": "audio/wav", "webm": "audio/webm", "flac": "audio/flac",
}

// byType is the extension of a content type, as Telegram gives them.
var byType = map[string]string{
	"audio/ogg": "ogg", "audio/opus": "ogg", "audio/x-opus+ogg": "ogg", "audio/mpeg": "mp3", "audio/mp3": "mp3",
	"audio/mp4": "m4a", "audio/m4a": "m4a", "audio/x-m4a": "m4a", "audio/aac": "m4a", "video/mp4": "mp4",
	"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/webm": "webm", "video/webm": "webm",
	"audio/flac": "flac", "audio/x-flac": "flac",
}

// fileName is the name the recording is sent under: "audio" with the
// extension of its own name, or else of its content type, or else, when
// Telegram gave none, of its first bytes. The person's
// file name itself stays home. Opus in Ogg goes as .ogg, which OpenAI's
// API takes and .opus it does not.
func fileName(a Audio) (name, contentType string) {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(a.Name)), ".")
	if _, ok := audioTypes[ext]; !ok {
		mt, _, _ := strings.Cut(strings.ToLower(a.MimeType), ";")
		ext = byType[strings.TrimSpace(mt)]
	}
	if ext == "" && a.MimeType == "" {
		ext = sniff(a.Data)
	}
	if ext == "opus" {
		ext = "ogg"
	}
	if ext == "" {
		return "audio", "application/octet-stream"
	}
	return "audio." + ext, audioTypes[ext]
}

// sniff is the extension of a recording by its first bytes, for one that
// comes without a content type or a name (Telegram's are optional): ""
// when they show no kind the API takes.
func sniff(data []byte) string {
	has := func(at int, sig string) bool { return len(data) >= at+len(sig) && string(data[at:at+len(sig)]) == sig }
	switch {
	case has(0, "OggS"):
		return "ogg"
	case has(0, "ID3"), len(data) >= 2 && data[0] == 0xff && data[1]&0xe0 == 0xe0:
		return "mp3"
	case has(4, "ftypM4A"):
		return "m4a"
	case has(4, "ftyp"):
		return "mp4"
	case has(0, "RIFF") && has(8, "WAVE"):
		return "wav"
	case has(0, "fLaC"):
		return "flac"
	case has(0, "\x1a\x45\xdf\xa3"):
		return "webm"
	}
	return ""
}

// language is an ISO-639-1 code from a hint such as "en" or "pt-BR", ""
// when the hint is no such code.
func language(hint string) string {
	code, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(hint)), "-")
	code, _, _ = strings.Cut(code, "_")
	if len(code) != 2 || code[0] < 'a' || code[0] > 'z' || code[1] < 'a' || code[1] > 'z' {
		return ""
	}
	return code
}

// form is the multipart request of OpenAI's API: model, response_format,
// temperature 0 (the least invention), language when known, and the file.
// whisper.cpp's /inference reads the same fields and ignores model.
func form(a Audio, model, format string) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	w.WriteField("model", model)
	w.WriteField("response_format", format)
	w.WriteField("temperature", "0")
	if lang := language(a.Language); lang != "" {
		w.WriteField("language", lang)
	}
	name, contentType := fileName(a)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", contentType)
	part, _ := w.CreatePart(h)
	part.Write(a.Data)
	w.Close()
	return &buf, w.FormDataContentType()
}

// maxWait is the longest wait a server is believed.
const maxWait = 24 * time.Hour
