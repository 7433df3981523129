package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ryo-bot/ryo"
)

// listTimeout bounds one GET /models, past the connection's own timeout.
const listTimeout = 10 * time.Second

// errList is a list of models not sent in time.
var errList = errors.New("the list of models not sent in time")

// Served is one model the server serves, as GET /models lists it.
type Served struct {
	ID      string
	OwnedBy string    // "openai", "vllm", "llamacpp", "organization_owner", …
	Created time.Time // zero when the server does not say
}

// Models lists the models the server serves, in its order.
func (c *Client) Models(ctx context.Context) ([]Served, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timeout, stop := c.cfg.Clock.Timer(c.cfg.ConnectTimeout + listTimeout)
	defer stop()
	go func() {
		select {
		case <-timeout:
			cancel(errList)
		case <-ctx.Done():
		}
	}()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/models", nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Accept", "application/json")
	c.authorize(r)
	resp, err := c.http.Do(r)
	if err != nil {
		return nil, c.explain(ctx, "", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list the models: %w", c.explain(ctx, "", statusOf(resp)))
	}
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
			Created int64  `json:"created"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxEvent)).Decode(&list); err != nil {
		return nil, fmt.Errorf("openai at %s: list the models: unreadable answer: %w", c.cfg.URL.Redacted(), err)
	}
	out := make([]Served, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID == "" {
			continue
		}
		s := Served{ID: m.ID, OwnedBy: m.OwnedBy}
		if m.Created > 0 {
			s.Created = time.Unix(m.Created, 0).UTC()
		}
		out = append(out, s)
	}
	return out, nil
}

// Probe reports whether the server answers, with the cheapest question
// it takes: the list of its models.
func (c *Client) Probe(ctx context.Context) error {
	_, err := c.Models(ctx)
	return err
}

// Installed lists the served models for /model. The server says nothing
// of what a model can do: each counts as one that answers, and the vision
// model (Config.VisionModel) as one that also reads pictures.
func (c *Client) Installed(ctx context.Context) ([]ryo.InstalledModel, error) {
	served, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ryo.InstalledModel, len(served))
	for i, s := range served {
		out[i] = ryo.InstalledModel{Name: s.ID, Family: s.OwnedBy, Modified: s.Created, Capabilities: c.capabilitiesOf(s.ID)}
	}
	return out, nil
}

// Capabilities are what model name can do, as far as ryo can tell: see
// Installed. A model the server does not serve is ryo.ModelMissing.
func (c *Client) Capabilities(ctx context.Context, name string) ([]ryo.Capability, error) {
	served, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range served {
		if ryo.SameModel(s.ID, name) {
			return c.capabilitiesOf(s.ID), nil
		}
	}
	return nil, &ryo.Error{Code: ryo.ENOTFOUND, Of: ryo.Model, Err: fmt.Errorf("openai: model %q is not served", name),
		Message: fmt.Sprintf("The model %q is not served by the model server. /model lists those it serves.", name)}
}

func (c *Client) capabilitiesOf(name string) []ryo.Capability {
	caps := []ryo.Capability{ryo.CanComplete}
	if c.cfg.VisionModel != "" && ryo.SameModel(name, c.cfg.VisionModel) {
		caps = append(caps, ryo.CanSee)
	}
	return caps
}

// VisionModel is the model a turn that shows pictures asks: the one
// named in Config.VisionModel, or "" when none is.
func (c *Client) VisionModel(context.Context) (string, error) { return c.cfg.VisionModel, nil }

// Check asks the server for its models, and whether the model and the
// vision model are among them. It returns a line saying what was found.
func (c *Client) Check(ctx context.Context) (string, error) {
	served, err := c.Models(ctx)
	if err != nil {
		return "", err
	}
	has := func(name string) bool {
		for _, s := range served {
			if ryo.SameModel(s.ID, name) {
				return true
			}
		}
		return false
	}
	found := fmt.Sprintf("%d models served", len(served))
	if !has(c.cfg.Model) {
		return found, fmt.Errorf("model %q (RYO_MODEL) is not among the server's models (GET %s/models)", c.cfg.Model, c.cfg.URL.Redacted())
	}
	if v := c.cfg.VisionModel; v != "" && !has(v) {
		return found, fmt.Errorf("vision model %q (RYO_VISION_MODEL) is not among the server's models", v)
	}
	return found, nil
}
