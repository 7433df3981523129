package bot

import (
	"context"

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
		b.log.Warn("cannot read the chat's language; speaking English", "chat_id", chat, "err", err)
	}
	if s.Language != "" {
		return lang.For(s.Language)
	}
	return lang.For(person.LanguageCode)
}
