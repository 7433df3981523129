package ollama

import (
	"context"
	"errors"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/ryo-bot/ryo"
)

// ErrNoEmbedModel is returned by Embed when no embedding model is configured.
var ErrNoEmbedModel = errors.New("ollama: no embedding model configured")

// Embed returns one vector per text from the configured embedding model,
// within the deadline of a whole answer.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.cfg.EmbedModel == "" {
		return nil, ErrNoEmbedModel
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errTotal)
	defer cancel()
	resp, err := c.api.Embed(ctx, &api.EmbedRequest{Model: c.cfg.EmbedModel, Input: texts,
		KeepAlive: &api.Duration{Duration: c.cfg.KeepAlive}})
	if err != nil {
		err = c.explain(ctx, c.cfg.EmbedModel, err)
		var rerr *ryo.Error
		if errors.As(err, &rerr) && rerr.Code == ryo.ENOTFOUND {
			rerr.Message = fmt.Sprintf("The embedding model %q is not installed. An admin can install it with: ollama pull %s",
				c.cfg.EmbedModel, c.cfg.EmbedModel)
		}
		return nil, err
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("ollama: %d embeddings for %d texts", len(resp.Embeddings), len(texts))
	}
	return resp.Embeddings, nil
}
