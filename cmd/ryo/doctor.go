package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/stt"
)

// doctor checks each thing ryo depends on and prints one line for each:
// each model server of OLLAMA_HOST on a line of its own.
func doctor(ctx context.Context, cfg Config, out io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	server := hostList(cfg.OllamaHosts)
	checks := []check{{"database", doctorDatabase}}
	if cfg.OpenAIURL == nil {
		checks = append(checks, ollamaChecks(cfg)...)
	} else {
		server = cfg.OpenAIURL.Redacted()
		checks = append(checks, check{"openai", doctorOpenAI})
		if cfg.EmbedModel != "" {
			checks = append(checks, check{"ollama (embeddings)", doctorEmbeddings})
		}
	}
	fmt.Fprintf(out, "✓ config: model %s at %s, Telegram at %s\n", cfg.Model, server, cfg.TelegramAPIURL)
	checks = append(checks, check{"telegram", doctorTelegram}, check{"transcription", doctorSTT})
	code := exitOK
	for _, c := range checks {
		detail, err := c.run(ctx, cfg)
		if err != nil {
			fmt.Fprintf(out, "✗ %s: %v\n", c.name, err)
			code = exitFailed
			continue
		}
		fmt.Fprintf(out, "✓ %s: %s\n", c.name, detail)
	}
	return code
}

// hostList is the servers of OLLAMA_HOST, passwords hidden.
func hostList(hosts []OllamaServer) string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.URL.Redacted()
	}
	return strings.Join(names, ", ")
}

func doctorDatabase(ctx context.Context, cfg Config) (string, error) {
	db, err := memory.Open(ctx, cfg.DatabaseURL.Reveal())
	if err != nil {
		return "", err
	}
	defer db.Close()
	applied, known, err := db.SchemaVersion(ctx)
	switch {
	case err != nil:
		return "", err
	case applied < known:
		return fmt.Sprintf("reachable; schema at %04d, %04d pending (applied at the next start or by ryo migrate)", applied, known), nil
	case applied > known:
		return "", fmt.Errorf("schema at %04d is newer than this ryo (%04d): run a newer ryo", applied, known)
	}
	return fmt.Sprintf("reachable; schema up to date (%04d); %s", applied, deadSummary(ctx, db)), nil
}

// deadSummary says how many updates wait in the dead letter.
func deadSummary(ctx context.Context, db *memory.DB) string {
	n, err := db.DeadCount(ctx)
	switch {
	case err != nil:
		return fmt.Sprintf("dead letter unreadable: %v", err)
	case n == 0:
		return "no update in the dead letter"
	}
	return fmt.Sprintf("%d update(s) in the dead letter: see them with `ryo deadletter`, retry with `ryo deadletter retry all` or /deadletter in Telegram", n)
}

// check is one line of the doctor's report.
type check struct {
	name string
	run  func(context.Context, Config) (string, error)
}

func doctorOpenAI(ctx context.Context, cfg Config) (string, error) {
	c := openai.New(openai.Config{URL: cfg.OpenAIURL, APIKey: cfg.OpenAIAPIKey, Model: cfg.Model, VisionModel: cfg.VisionModel, ConnectTimeout: cfg.ConnectTimeout})
	found, err := c.Check(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s, %s among them", found, cfg.Model), nil
}

// doctorEmbeddings checks that an Ollama server of OLLAMA_HOST has the
// embedding model while an OpenAI-compatible server answers.
func doctorEmbeddings(ctx context.Context, cfg Config) (string, error) {
	var last error
	for _, h := range cfg.OllamaHosts {
		c := ollama.New(ollama.Config{Host: h.URL, Model: cfg.EmbedModel, ConnectTimeout: cfg.ConnectTimeout})
		version, err := c.Check(ctx)
		switch {
		case err == nil && len(cfg.OllamaHosts) > 1:
			return fmt.Sprintf("Ollama %s has %s at %s", version, cfg.EmbedModel, h.URL.Redacted()), nil
		case err == nil:
			return fmt.Sprintf("Ollama %s has %s", version, cfg.EmbedModel), nil
		}
		last = err
	}
	return "", last
}

// ollamaChecks are the doctor's lines of the Ollama servers: one a server,
// and with several, one that says whether any has the model.
func ollamaChecks(cfg Config) []check {
	var found ollamaFound
	var checks []check
	for i, h := range cfg.OllamaHosts {
		name := "ollama"
		if len(cfg.OllamaHosts) > 1 {
			name = fmt.Sprintf("ollama %s (%d at once)", h.URL.Redacted(), h.Parallel)
		}
		checks = append(checks, check{name, func(ctx context.Context, cfg Config) (string, error) {
			return found.check(ctx, cfg, i)
		}})
	}
	if len(cfg.OllamaHosts) > 1 {
		checks = append(checks, check{"ollama", found.anywhere})
	}
	return checks
}

// ollamaFound is what the doctor learnt of the model servers: how many
// answered, and whether one of them has the model.
type ollamaFound struct {
	up, withModel int
}

// check asks server i of OLLAMA_HOST for its version, the model and the
// models it has. With several servers, one that lacks the model is no
// failure while another has it.
func (f *ollamaFound) check(ctx context.Context, cfg Config, i int) (string, error) {
	c := ollama.New(ollama.Config{Host: cfg.OllamaHosts[i].URL, Model: cfg.Model, ConnectTimeout: cfg.ConnectTimeout})
	version, err := c.Check(ctx)
	several := len(cfg.OllamaHosts) > 1
	if version != "" {
		f.up++
	}
	switch {
	case err != nil && (!several || version == ""):
		return "", err
	case err != nil:
		return fmt.Sprintf("up, Ollama %s, but %v; it still answers for the models it has%s", version, err, modelList(ctx, c)), nil
	}
	f.withModel++
	if several {
		return fmt.Sprintf("up, Ollama %s has %s%s", version, cfg.Model, modelList(ctx, c)), nil
	}
	return fmt.Sprintf("Ollama %s has %s%s", version, cfg.Model, modelList(ctx, c)), nil
}

// anywhere says, with several servers, whether any that is up has the
// model.
func (f *ollamaFound) anywhere(_ context.Context, cfg Config) (string, error) {
	switch {
	case f.up == 0:
		return "", fmt.Errorf("none of the %d servers answers", len(cfg.OllamaHosts))
	case f.withModel == 0:
		return "", fmt.Errorf("no server has the model %q (ollama pull %s)", cfg.Model, cfg.Model)
	}
	return fmt.Sprintf("%d of %d servers up, %d with %s", f.up, len(cfg.OllamaHosts), f.withModel, cfg.Model), nil
}

// modelList names the models a server has, for the doctor's line.
func modelList(ctx context.Context, c *ollama.Client) string {
	names, err := c.Models(ctx)
	switch {
	case err != nil:
		return "; its models cannot be listed: " + err.Error()
	case len(names) == 0:
		return "; no model installed"
	}
	return "; models: " + strings.Join(names, ", ")
}

func doctorTelegram(ctx context.Context, cfg Config) (string, error) {
	me, privacy, err := bot.Whoami(ctx, bot.Config{Token: cfg.Token, APIURL: cfg.TelegramAPIURL, CallTimeout: cfg.TelegramTimeout})
	if err != nil {
		return "", err
	}
	detail := fmt.Sprintf("@%s (id %d)", me.Username, me.ID)
	if privacy {
		detail += "; group privacy mode is on, so in groups only replies and commands reach the bot (turn it off in @BotFather: /setprivacy)"
	}
	hook, err := bot.WebhookInfo(ctx, bot.Config{Token: cfg.Token, APIURL: cfg.TelegramAPIURL, CallTimeout: cfg.TelegramTimeout})
	if err != nil {
		return "", err
	}
	return detail + webhookDetail(hook), nil
}

// webhookDetail tells what Telegram says of the webhook, if one is set.
func webhookDetail(h bot.WebhookStatus) string {
	if h.URL == "" {
		return "; no webhook set (ryo polls)"
	}
	d := fmt.Sprintf("; webhook %s, %d update(s) pending", h.URL, h.Pending)
	if h.LastErrorDate != 0 {
		d += fmt.Sprintf(", last error at %s: %s", time.Unix(h.LastErrorDate, 0).UTC().Format(time.RFC3339), h.LastError)
	}
	return d
}

// doctorSTT sends the transcription server half a second of silence: a
// transcript, or "no speech", shows that it answers and takes ryo's key.
func doctorSTT(ctx context.Context, cfg Config) (string, error) {
	if cfg.STTURL == nil {
		return "none set up (RYO_STT_URL): a voice message gets one sentence saying so", nil
	}
	c := stt.New(stt.Config{URL: cfg.STTURL, Model: cfg.STTModel, APIKey: cfg.STTAPIKey, Timeout: min(cfg.STTTimeout, 30*time.Second)})
	_, err := c.Transcribe(ctx, stt.Audio{Data: silence(), Name: "silence.wav", MimeType: "audio/wav", Duration: time.Second / 2})
	if err != nil && !errors.Is(err, stt.ErrNoSpeech) {
		return "", err
	}
	return fmt.Sprintf("the server at %s answers (model %s)", cfg.STTURL.Redacted(), cfg.STTModel), nil
}

// silence is half a second of 16 kHz, 16-bit mono PCM silence as WAV.
func silence() []byte {
	const rate, samples = 16000, 8000
	data := make([]byte, 44+2*samples)
	le := binary.LittleEndian
	copy(data[0:], "RIFF")
	le.PutUint32(data[4:], uint32(len(data)-8))
	copy(data[8:], "WAVEfmt ")
	le.PutUint32(data[16:], 16)
	le.PutUint16(data[20:], 1) // PCM
	le.PutUint16(data[22:], 1) // mono
	le.PutUint32(data[24:], rate)
	le.PutUint32(data[28:], rate*2)
	le.PutUint16(data[32:], 2)
	le.PutUint16(data[34:], 16)
	copy(data[36:], "data")
	le.PutUint32(data[40:], 2*samples)
	return data
}
