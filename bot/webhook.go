package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/bot/intake"
)

// DefaultWebhookConnections is how many requests Telegram may post to the
// webhook at once when the config names no number: the updates of one
// chat still run one at a time, so more only fills the inbox faster.
const DefaultWebhookConnections = 40

// webhookGate lets posted updates in only while Run's dispatcher takes
// them: after the unfinished updates are resumed, until shutdown begins.
type webhookGate struct {
	mu   sync.RWMutex
	open bool
}

func (g *webhookGate) set(open bool) {
	g.mu.Lock()
	g.open = open
	g.mu.Unlock()
}

// errNotTaking is a posted update's fate while the bot starts or stops:
// Telegram is answered 500 and sends it again.
var errNotTaking = errors.New("the bot is not taking updates yet or any more")

// Webhook is the handler Telegram posts updates to when Config.WebhookURL
// is set: each update is stored in the inbox before it is answered 200,
// as polling stores a batch before it confirms it.
func (b *Bot) Webhook() http.Handler {
	return intake.NewWebhook(b.cfg.WebhookSecret.Reveal(), b.keepPosted, b.log)
}

func (b *Bot) keepPosted(ctx context.Context, got intake.Batch) error {
	b.hook.mu.RLock()
	defer b.hook.mu.RUnlock()
	if !b.hook.open {
		return errNotTaking
	}
	stored, err := b.store(ctx, got)
	b.offerStored(ctx, b.queue, stored)
	return err
}

// takePosts sets the webhook and takes posted updates until ctx ends.
func (b *Bot) takePosts(ctx context.Context) {
	maxConn := b.cfg.WebhookConnections
	if maxConn == 0 {
		maxConn = DefaultWebhookConnections
	}
	for n := 1; ; n++ {
		err := b.tg.SetWebhook(ctx, b.cfg.WebhookURL, b.cfg.WebhookSecret, intake.AllowedUpdates(), maxConn)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return
		}
		b.log.WarnContext(ctx, "could not set the webhook; retrying", "url", b.cfg.WebhookURL, "err", err)
		if !ryo.Sleep(ctx, b.cfg.Clock, ryo.Backoff(n)) {
			return
		}
	}
	b.log.InfoContext(ctx, "webhook set: Telegram posts updates to it", "url", b.cfg.WebhookURL, "max_connections", maxConn)
	<-ctx.Done()
}

// WebhookStatus is what Telegram says of the bot's webhook.
type WebhookStatus struct {
	URL            string
	Pending        int
	LastError      string
	LastErrorDate  int64 // Unix seconds; 0 when there was none
	MaxConnections int
}

// WebhookInfo asks Telegram about the bot's webhook, as `ryo doctor` shows it.
func WebhookInfo(ctx context.Context, cfg Config) (WebhookStatus, error) {
	t, err := delivery.New(delivery.Options{Token: cfg.Token, APIURL: cfg.APIURL, CallTimeout: cfg.CallTimeout}, slog.New(slog.DiscardHandler))
	if err != nil {
		return WebhookStatus{}, err
	}
	engineCtx, stop := context.WithCancel(ctx)
	defer stop()
	go t.Run(engineCtx)
	info, err := t.WebhookInfo(ctx)
	if err != nil {
		return WebhookStatus{}, fmt.Errorf("getWebhookInfo: %w", err)
	}
	return WebhookStatus{URL: info.URL, Pending: info.PendingUpdateCount, LastError: info.LastErrorMessage,
		LastErrorDate: int64(info.LastErrorDate), MaxConnections: info.MaxConnections}, nil
}
