package bot

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
)

// Models is what the bot asks the model server about its models;
// *ollama.Client is one.
type Models interface {
	// Installed lists the installed models, each with what it can do.
	Installed(ctx context.Context) ([]ryo.InstalledModel, error)
	// Capabilities are what one model can do; ryo.ModelMissing when it
	// is not installed.
	Capabilities(ctx context.Context, name string) ([]ryo.Capability, error)
}

// The model a turn asks is the one an admin chose for its chat, else the
// default an admin chose, else RYO_MODEL. A chosen model that is no longer
// installed is passed over for the next: the turn goes on, and the log
// says so once for each chat and model (missing), not at every turn.

// modelsFor is the models turn t may ask, the one to ask first first: the
// chat's, the default, RYO_MODEL; each once. It reads t's settings when
// the turn has not yet.
func (b *Bot) modelsFor(ctx context.Context, t *talk) ([]string, error) {
	if t.settings == nil {
		s, err := b.db.TurnSettings(ctx, t.chat.ID)
		if err != nil {
			return nil, err
		}
		t.settings = &s
	}
	choice := t.settings.ModelChoice()
	var out []string
	for _, m := range []string{choice.Chat, choice.Default, b.model} {
		if m != "" && !containsModel(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

func containsModel(list []string, m string) bool {
	return slices.ContainsFunc(list, func(l string) bool { return ryo.SameModel(l, m) })
}

// asked is the model t asks: its photos' when it shows any, else the
// first of its models; "" for RYO_MODEL.
func (t talk) asked() string {
	if t.seen.model != "" {
		return t.seen.model
	}
	if len(t.models) > 0 {
		return t.models[0]
	}
	return ""
}

// answerWith runs the agent with the model t asks, and again with the
// next of t's models while the one asked is a chosen model no longer
// installed, before any tool ran.
func (b *Bot) answerWith(ctx context.Context, log *slog.Logger, t *talk, in agent.Input, ranTools *bool) (agent.Output, error) {
	for {
		in.Model = t.asked()
		out, err := b.agent.Run(ctx, in)
		switch {
		case err == nil && len(t.models) > 1 && ryo.SameModel(in.Model, t.models[0]):
			b.missing.back(t.chat.ID, in.Model)
		case err != nil && ryo.ModelMissing(err) && !*ranTools && ctx.Err() == nil && len(t.models) > 1 &&
			ryo.SameModel(in.Model, t.models[0]):
			b.passOver(ctx, log, t.chat.ID, t.models[0], t.models[1])
			t.models = t.models[1:]
			continue
		}
		return out, err
	}
}

// passOver logs, once for chat and model, that the chosen model is not
// installed and next answers instead.
func (b *Bot) passOver(ctx context.Context, log *slog.Logger, chat int64, model, next string) {
	if b.missing.note(chat, model) {
		log.WarnContext(ctx, "the model chosen here is no longer installed; the default answers instead until it is installed again or another is chosen (/model)",
			"model", model, "instead", next)
	}
}

// chatSees is the first of t's chosen models that is installed, when it
// reads pictures: a chat's own model that sees looks at its photos too.
// "" when none does, or the server cannot say (the vision model's rule
// then applies).
func (b *Bot) chatSees(ctx context.Context, log *slog.Logger, t talk) string {
	if b.cfg.Models == nil {
		return ""
	}
	for i, m := range t.models {
		if ryo.SameModel(m, b.model) {
			return "" // RYO_MODEL: RYO_VISION_MODEL's rule decides
		}
		caps, err := b.cfg.Models.Capabilities(ctx, m)
		switch {
		case ryo.ModelMissing(err) && i+1 < len(t.models):
			b.passOver(ctx, log, t.chat.ID, m, t.models[i+1])
			continue
		case err != nil:
			log.WarnContext(ctx, "cannot tell whether the chat's model reads pictures", "model", m, "err", err)
			return ""
		}
		if slices.Contains(caps, ryo.CanSee) {
			return m
		}
		return ""
	}
	return ""
}

// missingModels are the chats whose chosen model was found not installed,
// with that model: each is logged once, until the model answers there
// again.
type missingModels struct {
	mu   sync.Mutex
	seen map[missingModel]bool
}

type missingModel struct {
	chat  int64
	model string
}

// note remembers that model is missing in chat, and reports whether that
// is news.
func (m *missingModels) note(chat int64, model string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := missingModel{chat, ryo.FullModelName(model)}
	if m.seen[k] {
		return false
	}
	if m.seen == nil {
		m.seen = map[missingModel]bool{}
	}
	m.seen[k] = true
	return true
}

// back forgets that model was missing in chat: it answered there.
func (m *missingModels) back(chat int64, model string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, missingModel{chat, ryo.FullModelName(model)})
}
