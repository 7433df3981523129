package intake

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/ryo-bot/ryo/memory"
)

// SecretHeader is where Telegram puts the secret_token given to setWebhook.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxWebhookBody bounds one update posted to the webhook. Telegram's are
// far smaller; anything bigger is not Telegram's.
const maxWebhookBody = 1 << 20

// webhookReadTimeout bounds how long one request may take to arrive:
// Telegram sends its small updates at once, while a stranger dripping a
// body that never ends would otherwise hold a connection forever.
const webhookReadTimeout = 10 * time.Second

// Webhook takes the updates Telegram posts to the bot. It answers 200 only
// once keep has stored the update, as the poller confirms a batch only
// once it is kept: any other answer makes Telegram send it again.
type Webhook struct {
	secret []byte
	keep   Keep
	log    *slog.Logger

	readTimeout time.Duration // how long a request may take to arrive
}

// NewWebhook returns a webhook that takes only requests carrying secret
// and hands each update to keep.
func NewWebhook(secret string, keep Keep, log *slog.Logger) *Webhook {
	return &Webhook{secret: []byte(secret), keep: keep, log: log, readTimeout: webhookReadTimeout}
}

func (h *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Also bounds the server's draining of a refused request's body.
	// A recorder in tests cannot take a deadline; a server always can.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.readTimeout))
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(SecretHeader)), h.secret) != 1 {
		h.log.Warn("webhook: a request without the right secret was refused", "remote", r.RemoteAddr)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	batch, status, err := readWebhook(w, r)
	if err != nil {
		h.log.Warn("webhook: a request was refused", "status", status, "err", err, "remote", r.RemoteAddr)
		http.Error(w, http.StatusText(status), status)
		return
	}
	if err := h.keep(r.Context(), batch); err != nil {
		h.log.Error("webhook: could not keep an update; Telegram sends it again", "err", err)
		http.Error(w, "not kept", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// readWebhook reads the one update a request holds. An object without a
// readable update_id is still Telegram's: it goes to the dead letter, as
// it would when polled. What is no JSON object at all is refused.
func readWebhook(w http.ResponseWriter, r *http.Request) (Batch, int, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return Batch{}, http.StatusRequestEntityTooLarge, err
	}
	if err != nil {
		return Batch{}, http.StatusBadRequest, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil { // null leaves fields nil
		return Batch{}, http.StatusBadRequest, errors.New("body is no JSON object")
	}
	if u, ok := Read(data); ok {
		return Batch{Updates: []memory.InboxUpdate{u}}, http.StatusOK, nil
	}
	return Batch{Unreadable: []json.RawMessage{data}}, http.StatusOK, nil
}

// ValidWebhookSecret reports whether s may be a secret_token: Telegram
// takes 1–256 characters of A–Z, a–z, 0–9, _ and -.
func ValidWebhookSecret(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// DerivedWebhookSecret is the secret_token of a bot whose settings name
// none: 43 characters made from its token, so that every process of the
// same bot gives Telegram, and checks, the same one. Whoever could compute
// it holds the token, and could set the webhook anyway.
func DerivedWebhookSecret(token string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte("ryo webhook secret_token"))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// NewWebhookSecret returns a random secret_token of 43 characters.
func NewWebhookSecret() (string, error) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
	b := make([]byte, 43)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = alphabet[b[i]%64]
	}
	return string(b), nil
}
