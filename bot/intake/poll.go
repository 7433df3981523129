package intake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/memory"
)

// AllowedUpdates are the kinds of update the bot asks Telegram for, by
// polling or by webhook.
func AllowedUpdates() []string {
	return []string{"message", "edited_message", "callback_query", "my_chat_member"}
}

// Poller long-polls getUpdates and confirms a batch only after it is
// kept: the offset that confirms a batch is sent with the next call, which
// happens only once keep has stored it.
type Poller struct {
	url     string // the getUpdates URL; holds the token, never logged
	token   string // to scrub from errors
	timeout time.Duration
	client  *http.Client
	clock   ryo.Clock
	log     *slog.Logger

	observer delivery.Observer // told of each getUpdates; nil for nobody
}

// Options say where to poll, and how.
type Options struct {
	Token       ryo.Secret
	APIURL      string
	PollTimeout time.Duration // how long one getUpdates waits for updates
	CallTimeout time.Duration // added to PollTimeout for the call's deadline
	Clock       ryo.Clock     // the system clock when nil

	Observer delivery.Observer // told of each getUpdates; nil for nobody
}

// NewPoller returns a poller of the Bot API o names.
func NewPoller(o Options, log *slog.Logger) *Poller {
	if o.Clock == nil {
		o.Clock = ryo.SystemClock{}
	}
	return &Poller{
		url:     strings.TrimRight(o.APIURL, "/") + "/bot" + o.Token.Reveal() + "/getUpdates",
		token:   o.Token.Reveal(),
		timeout: o.PollTimeout,
		client:  &http.Client{Timeout: o.PollTimeout + o.CallTimeout},
		clock:   o.Clock,
		log:     log,

		observer: o.Observer,
	}
}

// Keep stores a batch, or fails, and then Telegram sends the batch again.
type Keep func(ctx context.Context, b Batch) error

// Run fetches updates until ctx ends, handing each batch to keep before
// the next fetch confirms it to Telegram. Failures are logged and waited
// out: the updates stay with Telegram meanwhile.
func (p *Poller) Run(ctx context.Context, keep Keep) {
	var offset int64
	failures := 0
	for ctx.Err() == nil {
		got, err := p.fetch(ctx, offset)
		p.observe(ctx, err)
		if err == nil {
			err = keep(ctx, got)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			wait := pollBackoff(err, failures)
			p.log.Warn("polling Telegram failed", "err", err, "retry_in", wait, "failures", failures)
			ryo.Sleep(ctx, p.clock, wait)
			continue
		}
		failures = 0
		for _, u := range got.Updates {
			offset = max(offset, u.ID+1)
		}
		if len(got.Updates) == 0 && len(got.Unreadable) > 0 {
			// Nothing to confirm them with: Telegram sends them again
			// until an update with an id comes after them.
			ryo.Sleep(ctx, p.clock, unreadableWait)
		}
	}
}

// unreadableWait is how long the poller waits before it asks again for a
// batch that held only updates without a readable id.
const unreadableWait = time.Second

// apiError is an error answer of the Bot API.
type apiError struct {
	Code        int
	Description string
	RetryAfter  int
}

func (e *apiError) Error() string { return fmt.Sprintf("telegram: %d %s", e.Code, e.Description) }

// fetch returns the updates from offset on, waiting up to the poll timeout
// for some to arrive.
func (p *Poller) fetch(ctx context.Context, offset int64) (Batch, error) {
	body, _ := json.Marshal(map[string]any{
		"offset": offset, "timeout": int(p.timeout.Seconds()), "allowed_updates": AllowedUpdates(),
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return Batch{}, p.scrub(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return Batch{}, p.scrub(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Batch{}, p.scrub(err)
	}
	ups, err := decodeUpdates(resp.StatusCode, data)
	return ups, delivery.Scrub(err, p.token)
}

// observe tells the observer how a getUpdates went, unless it was cut
// short by ctx, which is no outcome of Telegram's.
func (p *Poller) observe(ctx context.Context, err error) {
	if p.observer == nil || ctx.Err() != nil {
		return
	}
	var api *apiError
	if errors.As(err, &api) {
		p.observer.TelegramCalled("getUpdates", delivery.StatusOutcome(api.Code), time.Duration(api.RetryAfter)*time.Second)
		return
	}
	p.observer.TelegramCalled("getUpdates", delivery.Outcome(err), 0)
}

// scrub removes the token from an error that quotes the request URL.
func (p *Poller) scrub(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		urlErr.URL = strings.ReplaceAll(urlErr.URL, p.token, "***")
	}
	return delivery.Scrub(fmt.Errorf("getUpdates: %w", err), p.token)
}

// Batch is what one getUpdates answer holds: the updates the inbox can take,
// and those without an update_id that can be read, which only the dead
// letter can keep.
type Batch struct {
	Updates    []memory.InboxUpdate
	Unreadable []json.RawMessage
}

func decodeUpdates(status int, data []byte) (Batch, error) {
	var resp struct {
		OK          bool              `json:"ok"`
		Result      []json.RawMessage `json:"result"`
		ErrorCode   int               `json:"error_code"`
		Description string            `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		updates, ok := splitResult(data)
		if !ok {
			return Batch{}, fmt.Errorf("getUpdates: HTTP %d, not a Bot API answer: %.100q", status, data)
		}
		resp.OK, resp.Result = true, updates
	}
	if !resp.OK {
		return Batch{}, &apiError{Code: resp.ErrorCode, Description: resp.Description, RetryAfter: resp.Parameters.RetryAfter}
	}
	var b Batch
	for _, raw := range resp.Result {
		if u, ok := Read(raw); ok {
			b.Updates = append(b.Updates, u)
		} else {
			b.Unreadable = append(b.Unreadable, raw)
		}
	}
	return b, nil
}

// Read reads what the inbox needs from a raw update: its id, its kind and
// its chat. It keeps the raw bytes as they are. ok is false when the update
// has no id that can be read.
func Read(raw json.RawMessage) (memory.InboxUpdate, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return memory.InboxUpdate{}, false
	}
	u := memory.InboxUpdate{Raw: raw, Kind: "unknown"}
	// An id of 2⁶³-1 could never be confirmed: the offset is one more.
	if err := json.Unmarshal(fields["update_id"], &u.ID); err != nil || u.ID <= 0 || u.ID == math.MaxInt64 {
		return memory.InboxUpdate{}, false
	}
	if kind, ok := firstKind(raw); ok && kindName(kind) {
		u.Kind, u.ChatID, u.Sender = kind, chatOfRaw(fields[kind]), senderOfRaw(fields[kind])
	}
	return u, true
}

// kindName reports whether key can name a kind of update: Telegram's are
// short snake_case words. Any other first key (a NUL, bytes that are not
// UTF-8, a whole paragraph) is an update of a kind the bot does not know.
func kindName(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for _, r := range key {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

// firstKind is the first key of an update other than update_id, in the
// order Telegram wrote them: an update has one, but should one ever come
// with two, its kind, and so its chat's queue, must not depend on chance.
func firstKind(raw json.RawMessage) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", false
		}
		if key, _ := t.(string); key != "update_id" {
			return key, true
		}
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return "", false
		}
	}
	return "", false
}

// chatOfRaw finds the chat an update's body belongs to: its own chat, or the
// chat of the message a button was pressed under.
func chatOfRaw(body json.RawMessage) int64 {
	var v struct {
		Chat *struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		Message *struct {
			Chat struct {
				ID int64 `json:"id"`
			} `json:"chat"`
		} `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	if v.Chat != nil {
		return v.Chat.ID
	}
	if v.Message != nil {
		return v.Message.Chat.ID
	}
	return 0
}

// senderOfRaw finds who sent an update's body: the chat it was sent on
// behalf of (an anonymous admin's group, someone's channel), else its
// author — as the bot reads a message's sender.
func senderOfRaw(body json.RawMessage) int64 {
	var v struct {
		SenderChat *struct {
			ID int64 `json:"id"`
		} `json:"sender_chat"`
		From *struct {
			ID int64 `json:"id"`
		} `json:"from"`
	}
	if json.Unmarshal(body, &v) != nil {
		return 0
	}
	if v.SenderChat != nil && v.SenderChat.ID != 0 {
		return v.SenderChat.ID
	}
	if v.From != nil {
		return v.From.ID
	}
	return 0
}

// pollBackoff is how long to wait after the n-th failure in a row.
func pollBackoff(err error, n int) time.Duration {
	var apiErr *apiError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return time.Duration(apiErr.RetryAfter) * time.Second
	}
	return ryo.Backoff(n)
}
