package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollama"
)

// doctor checks each thing ryo depends on and prints one line for each.
func doctor(ctx context.Context, cfg Config, out io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	fmt.Fprintf(out, "✓ config: model %s at %s, Telegram at %s\n", cfg.Model, cfg.OllamaHost.Redacted(), cfg.TelegramAPIURL)
	checks := []struct {
		name string
		run  func(context.Context, Config) (string, error)
	}{
		{"database", doctorDatabase},
		{"ollama", doctorOllama},
		{"telegram", doctorTelegram},
	}
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
	return detail, nil
}
