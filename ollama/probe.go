package ollama

import (
	"context"
	"fmt"
)

// Models names the models the server has installed (/api/tags), as it
// names them; what a pool of servers asks to know where a model is.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+showTimeout)
	defer cancel()
	list, err := c.api.List(ctx)
	if err != nil {
		return nil, c.explainShow("list the installed models", "", err)
	}
	names := make([]string, len(list.Models))
	for i, m := range list.Models {
		names[i] = m.Name
	}
	return names, nil
}

// Probe reports whether the server answers at all (/api/version).
func (c *Client) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+showTimeout)
	defer cancel()
	if _, err := c.api.Version(ctx); err != nil {
		return fmt.Errorf("ollama at %s: %w", c.cfg.Host.Redacted(), err)
	}
	return nil
}

// Host is the server's address, its password (if any) hidden.
func (c *Client) Host() string { return c.cfg.Host.Redacted() }
