package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/openai"
	"github.com/ryo-bot/ryo/stt"
)

// doctor checks each thing ryo depends on and prints one line for each.
func doctor(ctx context.Context, cfg Config, out io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	server, modelCheck := cfg.OllamaHost, check{"ollama", doctorOllama}
	if cfg.OpenAIURL != nil {
		server, modelCheck = cfg.OpenAIURL, check{"openai", doctorOpenAI}
	}
	fmt.Fprintf(out, "✓ config: model %s at %s, Telegram at %s\n", cfg.Model, server.Redacted(), cfg.TelegramAPIURL)
	checks := []check{{"database", doctorDatabase}, modelCheck}
	if cfg.OpenAIURL != nil && cfg.EmbedModel != "" {
		checks = append(checks, check{"ollama (embeddings)", doctorEmbeddings})
	}
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

// doctorEmbeddings checks the Ollama server that embeds while an
// OpenAI-compatible server answers.
func doctorEmbeddings(ctx context.Context, cfg Config) (string, error) {
	c := ollama.New(ollama.Config{Host: cfg.OllamaHost, Model: cfg.EmbedModel, ConnectTimeout: cfg.ConnectTimeout})
	version, err := c.Check(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Ollama %s has %s", version, cfg.EmbedModel), nil
}

func doctorOllama(ctx context.Context, cfg Config) (string, error) {
	c := ollama.New(ollama.Config{Host: cfg.OllamaHost, Model: cfg.Model, ConnectTimeout: cfg.ConnectTimeout})
	version, err := c.Check(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Ollama %s has %s", version, cfg.Model), nil
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
