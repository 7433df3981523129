package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ryo-bot/ryo/memory"
)

// allowedUpdates are the kinds of update the bot asks Telegram for.
var allowedUpdates = []string{"message", "edited_message", "callback_query", "my_chat_member"}

// poller long-polls getUpdates and hands each batch on only after it is
// stored: the offset that confirms a batch is sent with the next call, which
// happens only once the batch is in the inbox.
type poller struct {
	url     string // the getUpdates URL; holds the token, never logged
	token   string // to scrub from errors
	timeout time.Duration
	client  *http.Client
}

func newPoller(cfg Config) *poller {
	return &poller{
		url:     strings.TrimRight(cfg.APIURL, "/") + "/bot" + cfg.Token.Reveal() + "/getUpdates",
		token:   cfg.Token.Reveal(),
		timeout: cfg.PollTimeout,
		client:  &http.Client{Timeout: cfg.PollTimeout + cfg.CallTimeout},
	}
}

// apiError is an error answer of the Bot API.
type apiError struct {
	Code        int
	Description string
	RetryAfter  int
}

func (e *apiError) Error() string { return fmt.Sprintf("telegram: %d %s", e.Code, e.Description) }

// fetch returns the updates from offset on, waiting up to the poll timeout
// for some to arrive.
func (p *poller) fetch(ctx context.Context, offset int64) (batch, error) {
	body, _ := json.Marshal(map[string]any{
		"offset": offset, "timeout": int(p.timeout.Seconds()), "allowed_updates": allowedUpdates,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return batch{}, p.scrub(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return batch{}, p.scrub(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return batch{}, p.scrub(err)
	}
	ups, err := decodeUpdates(resp.StatusCode, data)
	return ups, scrub(err, p.token)
}

// scrub removes the token from an error that quotes the request URL.
func (p *poller) scrub(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		urlErr.URL = strings.ReplaceAll(urlErr.URL, p.token, "***")
	}
	return scrub(fmt.Errorf("getUpdates: %w", err), p.token)
}

// batch is what one getUpdates answer holds: the updates the inbox can take,
// and those without an update_id that can be read, which only the dead
// letter can keep.
type batch struct {
	updates    []memory.InboxUpdate
	unreadable []json.RawMessage
}

func decodeUpdates(status int, data []byte) (batch, error) {
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
		return batch{}, fmt.Errorf("getUpdates: HTTP %d, not a Bot API answer: %.100q", status, data)
	}
	if !resp.OK {
		return batch{}, &apiError{Code: resp.ErrorCode, Description: resp.Description, RetryAfter: resp.Parameters.RetryAfter}
	}
	var b batch
	for _, raw := range resp.Result {
		if u, ok := inboxUpdate(raw); ok {
			b.updates = append(b.updates, u)
		} else {
			b.unreadable = append(b.unreadable, raw)
		}
	}
	return b, nil
}

// inboxUpdate reads what the inbox needs from a raw update: its id, its kind
// and its chat. It keeps the raw bytes as they are.
func inboxUpdate(raw json.RawMessage) (memory.InboxUpdate, bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return memory.InboxUpdate{}, false
	}
	u := memory.InboxUpdate{Raw: raw, Kind: "unknown"}
	if err := json.Unmarshal(fields["update_id"], &u.ID); err != nil || u.ID <= 0 {
		return memory.InboxUpdate{}, false
	}
	if kind, ok := firstKind(raw); ok && kindName(kind) {
		u.Kind, u.ChatID = kind, chatOfRaw(fields[kind])
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

// pollBackoff is how long to wait after the n-th failure in a row.
func pollBackoff(err error, n int) time.Duration {
	var apiErr *apiError
	if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
		return time.Duration(apiErr.RetryAfter) * time.Second
	}
	return backoff(n)
}

// backoff doubles from half a second up to 30 seconds.
func backoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}
