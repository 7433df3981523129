package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// webhook is what setWebhook was given. A zero url means none is set.
type webhook struct {
	url, secret    string
	maxConnections int
	allowed        []string
	lastError      string
	lastErrorDate  int64
}

// webhookActive is Telegram's answer to getUpdates while a webhook is set.
func webhookActive() APIError {
	return APIError{
		Code:        http.StatusConflict,
		Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
	}
}

func (s *Server) setWebhook(r *request) (any, error) {
	h := webhook{url: r.str("url"), secret: r.str("secret_token"), maxConnections: r.int("max_connections")}
	if v := r.str("allowed_updates"); v != "" && json.Unmarshal([]byte(v), &h.allowed) != nil && r.err == nil {
		r.err = badRequest("can't parse allowed updates JSON array")
	}
	if r.err != nil {
		return nil, r.err
	}
	if h.url == "" { // an empty url removes the webhook, as in Telegram
		s.hook = webhook{}
		return true, nil
	}
	if u, err := url.Parse(h.url); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, badRequest("bad webhook: An HTTPS URL must be provided for webhook")
	}
	if h.secret != "" && !secretToken(h.secret) {
		return nil, badRequest("secret token contains unallowed characters")
	}
	if h.maxConnections == 0 {
		h.maxConnections = 40
	}
	if h.maxConnections < 1 || h.maxConnections > 100 {
		return nil, badRequest("bad webhook: max_connections must be between 1 and 100")
	}
	s.kickPoller()
	s.hook = h
	s.notify()
	return true, nil
}

func secretToken(v string) bool {
	if len(v) > 256 {
		return false
	}
	for _, c := range []byte(v) {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func (s *Server) deleteWebhook(r *request) (any, error) {
	drop := r.bool("drop_pending_updates")
	if r.err != nil {
		return nil, r.err
	}
	s.hook = webhook{}
	if drop {
		s.queue.items = nil
	}
	s.notify()
	return true, nil
}

func (s *Server) getWebhookInfo(*request) (any, error) {
	return struct {
		URL                  string   `json:"url"`
		HasCustomCertificate bool     `json:"has_custom_certificate"`
		PendingUpdateCount   int      `json:"pending_update_count"`
		LastErrorDate        int64    `json:"last_error_date,omitempty"`
		LastErrorMessage     string   `json:"last_error_message,omitempty"`
		MaxConnections       int      `json:"max_connections,omitempty"`
		AllowedUpdates       []string `json:"allowed_updates,omitempty"`
	}{URL: s.hook.url, PendingUpdateCount: len(s.queue.items), LastErrorDate: s.hook.lastErrorDate,
		LastErrorMessage: s.hook.lastError, MaxConnections: s.hook.maxConnections, AllowedUpdates: s.hook.allowed}, nil
}

// Webhook returns the webhook's URL and secret_token as setWebhook last
// set them; url is "" when none is set.
func (s *Server) Webhook() (hookURL, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hook.url, s.hook.secret
}

// DeliverWebhook posts the pending updates, one request each and in order,
// as Telegram does to a webhook: a JSON body, the secret_token in the
// X-Telegram-Bot-Api-Secret-Token header. The request goes to base (such
// as http://127.0.0.1:PORT, where a reverse proxy would forward it) with
// the webhook URL's path. An update answered 2xx is confirmed; the first
// one answered otherwise stays pending, its error noted for
// getWebhookInfo, and is returned. It returns how many were delivered.
func (s *Server) DeliverWebhook(ctx context.Context, base string) (int, error) {
	delivered := 0
	for {
		s.mu.Lock()
		hook := s.hook
		if hook.url == "" {
			s.mu.Unlock()
			return delivered, fmt.Errorf("telegramtest: no webhook is set")
		}
		if len(s.queue.items) == 0 {
			s.mu.Unlock()
			return delivered, nil
		}
		next := s.queue.items[0]
		s.mu.Unlock()
		status, err := postHook(ctx, base, hook, next.raw)
		s.mu.Lock()
		if err == nil && status/100 != 2 {
			err = fmt.Errorf("Wrong response from the webhook: %d %s", status, http.StatusText(status))
		}
		if err != nil {
			s.hook.lastError, s.hook.lastErrorDate = err.Error(), s.opts.Now().Unix()
			s.mu.Unlock()
			return delivered, err
		}
		s.queue.confirm(next.id + 1)
		s.notify()
		s.mu.Unlock()
		delivered++
	}
}

func postHook(ctx context.Context, base string, hook webhook, raw []byte) (int, error) {
	u, err := url.Parse(hook.url)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+u.RequestURI(), bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if hook.secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", hook.secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
