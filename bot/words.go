package bot

import (
	"context"
	"encoding/json"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// words is the printer of ryo's own messages in chat, to person: the
// language the chat chose in /settings; else the person's own (Telegram's
// language_code) when ryo speaks it; else English. A settings that cannot
// be read gives English, logged: a message in the wrong language beats
// none.
func (b *Bot) words(ctx context.Context, chat int64, person ryo.User) lang.Printer {
	s, err := b.db.ChatSettings(ctx, chat)
	if err != nil {
		b.log.WarnContext(ctx, "cannot read the chat's language; speaking English", "chat_id", chat, "err", err)
	}
	return wordsIn(s.Language, person)
}

// wordsIn is words for a chat whose language is language ("" when it
// chose none).
func wordsIn(language string, person ryo.User) lang.Printer {
	if language != "" {
		return lang.For(language)
	}
	return lang.For(person.LanguageCode)
}

// wordsOf is words for message m: its chat, and the person who sent it.
func (b *Bot) wordsOf(ctx context.Context, m *models.Message) lang.Printer {
	return b.words(ctx, m.Chat.ID, userOf(m.From))
}

// wordsAt is words for a press: the chat of the message under the button
// (none when Telegram no longer shows it), and the presser.
func (b *Bot) wordsAt(ctx context.Context, q *models.CallbackQuery) lang.Printer {
	var chat int64
	if m := q.Message.Message; m != nil {
		chat = m.Chat.ID
	}
	return b.words(ctx, chat, userOf(&q.From))
}

// wordsOfAction is words for what concerns action a: its chat, and the
// person who asked for it, in the language Telegram last told of them.
func (b *Bot) wordsOfAction(ctx context.Context, a ryo.Action) lang.Printer {
	person, _, err := b.db.FindUser(ctx, a.Requester)
	if err != nil {
		b.log.WarnContext(ctx, "cannot read the language of who asked; speaking the chat's", "action", a.ID, "err", err)
	}
	return b.words(ctx, a.Place.ChatID, person)
}

// wordsOfRaw is words for a stored update, read as far as it reads: its
// chat and sender when it is a message, else English.
func (b *Bot) wordsOfRaw(ctx context.Context, raw json.RawMessage) lang.Printer {
	upd, _, err := decodeUpdate(raw)
	if err != nil || upd.Message == nil {
		return lang.For(lang.English)
	}
	return b.wordsOf(ctx, upd.Message)
}
