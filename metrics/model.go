package metrics

import (
	"context"

	"github.com/ryo-bot/ryo"
)

// Model is the chat model, as the agent asks it.
type Model interface {
	Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)
}

// Model outcomes and token directions.
const (
	outcomeOK    = "ok"
	outcomeError = "error"
	directionIn  = "in"  // the prompt
	directionOut = "out" // the reply
)

// Model returns model with each call and its tokens counted, failed calls
// included: the tokens the model server reported before it failed were
// spent all the same.
func (m *Metrics) Model(model Model) Model { return countingModel{model: model, m: m} }

type countingModel struct {
	model Model
	m     *Metrics
}

func (c countingModel) Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error) {
	reply, err := c.model.Chat(ctx, req)
	outcome := outcomeOK
	if err != nil {
		outcome = outcomeError
	}
	c.m.modelCalls.WithLabelValues(outcome).Inc()
	c.m.tokens.WithLabelValues(directionIn).Add(float64(max(reply.Usage.PromptTokens, 0)))
	c.m.tokens.WithLabelValues(directionOut).Add(float64(max(reply.Usage.ReplyTokens, 0)))
	return reply, err
}
