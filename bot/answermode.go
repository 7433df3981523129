package bot

import (
	"cmp"
	"context"
	"sync"

	"github.com/go-telegram/bot/models"
)

// A group's answer mode (/settings) says which of its messages the bot
// answers: "mention" — a mention of the bot or a reply to it, as
// classify decides — the default; "every" — every message, so that one
// not meant for the bot is a question, not context; "off" — commands
// only, so that a mention or a reply is kept as context and answered
// never. classify reads nothing but the update; the mode is applied right
// after it (inAnswerMode), from a per-chat cache that /settings updates
// as it changes the mode, so a change holds from the next message. In
// private chats every message is answered, whatever the mode.

// Answer modes, as stored.
const (
	modeMention = "mention"
	modeEvery   = "every"
	modeOff     = "off"
)

// answerModes are the answer modes of the groups read so far.
type answerModes struct {
	mu sync.Mutex
	of map[int64]string
}

func (m *answerModes) get(chat int64) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mode, ok := m.of[chat]
	return mode, ok
}

func (m *answerModes) set(chat int64, mode string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.of == nil {
		m.of = map[int64]string{}
	}
	m.of[chat] = cmp.Or(mode, modeMention)
}

// answerModeOf is chat's answer mode.
func (b *Bot) answerModeOf(ctx context.Context, chat int64) (string, error) {
	if mode, ok := b.modes.get(chat); ok {
		return mode, nil
	}
	s, err := b.db.ChatSettings(ctx, chat)
	if err != nil {
		return "", err
	}
	b.modes.set(chat, s.AnswerMode)
	return cmp.Or(s.AnswerMode, modeMention), nil
}

// inAnswerMode is r, a group message's route, as its group's answer mode
// has it.
func (b *Bot) inAnswerMode(ctx context.Context, r route) (route, error) {
	if r.msg == nil || r.msg.Chat.Type == models.ChatTypePrivate ||
		r.what != verdictKeep && r.what != verdictAnswer && r.what != verdictUnreadable {
		return r, nil
	}
	mode, err := b.answerModeOf(ctx, r.msg.Chat.ID)
	if err != nil {
		return r, err
	}
	switch {
	case mode == modeEvery && r.what == verdictKeep && !r.msg.IsAutomaticForward:
		return route{what: verdictAnswer, why: "a group message, in a group where the bot answers every message", msg: r.msg}, nil
	case mode == modeOff && r.what == verdictAnswer:
		return asContext(r.msg, "a message meant for the bot, in a group where it answers only commands: kept as context"), nil
	case mode == modeOff && r.what == verdictUnreadable:
		return ignored("media meant for the bot, in a group where it answers only commands"), nil
	}
	return r, nil
}
