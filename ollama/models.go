package ollama

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo"
)

// shows remembers what /api/show said of each model: a model's
// capabilities do not change while the same version of it is installed,
// and neither a turn with a photo nor /model should wait for the server
// each time. A model pulled again (a new modified time in /api/tags) or
// gone (404) is asked about afresh.
type shows struct {
	asking chan struct{} // one slot, held while the server is asked; it guards byName
	byName map[string]shown
}

// shown is what /api/show said of one version of a model.
type shown struct {
	modified time.Time // as /api/tags gave it; zero when learnt from /api/show alone
	caps     []ryo.Capability
}

func newShows() shows {
	return shows{asking: make(chan struct{}, 1), byName: map[string]shown{}}
}

// showTimeout bounds one /api/show or /api/tags, past the connection's own
// timeout.
const showTimeout = 10 * time.Second

// Installed lists the models the server has installed, in its order, each
// with its capabilities. A model whose capabilities the server cannot tell
// now is listed without them; an error means the list itself could not be
// had.
func (c *Client) Installed(ctx context.Context) ([]ryo.InstalledModel, error) {
	listCtx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+showTimeout)
	defer cancel()
	list, err := c.api.List(listCtx)
	if err != nil {
		return nil, c.explainShow("list the installed models", "", err)
	}
	out := make([]ryo.InstalledModel, 0, len(list.Models))
	for _, m := range list.Models {
		caps, err := c.capabilities(ctx, m.Name, m.ModifiedAt)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		out = append(out, ryo.InstalledModel{Name: m.Name, Size: m.Size, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel, Modified: m.ModifiedAt, Capabilities: caps})
	}
	c.forgetAllBut(out)
	return out, nil
}

// Capabilities are what model name can do, as the server says: asked once
// for each version of a model. A model not installed is an error of code
// ryo.ENOTFOUND.
func (c *Client) Capabilities(ctx context.Context, name string) ([]ryo.Capability, error) {
	return c.capabilities(ctx, name, time.Time{})
}

// capabilities asks /api/show about a model unless it was asked about
// already: of the version modified then, when modified is not zero.
func (c *Client) capabilities(ctx context.Context, name string, modified time.Time) ([]ryo.Capability, error) {
	// A caller waits for another's question to the server no longer than
	// its own deadline.
	select {
	case c.shows.asking <- struct{}{}:
		defer func() { <-c.shows.asking }()
	case <-ctx.Done():
		return nil, fmt.Errorf("ollama: what %q can do: %w", name, ctx.Err())
	}
	key := ryo.FullModelName(name)
	if s, ok := c.shows.byName[key]; ok && (modified.IsZero() || s.modified.Equal(modified)) {
		return s.caps, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+showTimeout)
	defer cancel()
	show, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		delete(c.shows.byName, key)
		return nil, c.explainShow("show model", name, err)
	}
	caps := make([]ryo.Capability, len(show.Capabilities))
	for i, cp := range show.Capabilities {
		caps[i] = ryo.Capability(cp)
	}
	c.shows.byName[key] = shown{modified: modified, caps: caps}
	return caps, nil
}

// forgetAllBut forgets what was said of models no longer installed.
func (c *Client) forgetAllBut(installed []ryo.InstalledModel) {
	c.shows.asking <- struct{}{}
	defer func() { <-c.shows.asking }()
	keep := map[string]bool{}
	for _, m := range installed {
		keep[ryo.FullModelName(m.Name)] = true
	}
	for k := range c.shows.byName {
		if !keep[k] {
			delete(c.shows.byName, k)
		}
	}
}

// explainShow wraps a failed question about models: a model not installed
// is ryo.ENOTFOUND, as in a chat.
func (c *Client) explainShow(what, name string, err error) error {
	var status api.StatusError
	if errors.As(err, &status) {
		return fmt.Errorf("ollama: %s %q: %w", what, name, statusError(name, status))
	}
	if name == "" {
		return fmt.Errorf("ollama at %s: %s: %w", c.cfg.Host.Redacted(), what, err)
	}
	return fmt.Errorf("ollama: %s %q: %w", what, name, err)
}
