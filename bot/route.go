package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
)

const (
	cannotReadMedia = "I can only read text for now — please write your question as a message."
	staleButton     = "This button no longer works."
)

// errMalformed marks an update that does not decode as a Telegram update.
var errMalformed = errors.New("malformed update")

// handle routes one update.
func (b *Bot) handle(ctx context.Context, id int64, raw json.RawMessage) error {
	var upd models.Update
	if err := json.Unmarshal(raw, &upd); err != nil {
		return errors.Join(errMalformed, err)
	}
	switch {
	case upd.Message != nil:
		return b.onMessage(ctx, id, upd.Message)
	case upd.CallbackQuery != nil:
		return b.onPress(ctx, id, upd.CallbackQuery)
	case upd.MyChatMember != nil:
		return b.onMembership(ctx, upd.MyChatMember)
	}
	// Edits, and kinds the bot does not act on, are ignored on purpose.
	b.log.Debug("ignoring update", "update_id", id)
	return nil
}

func (b *Bot) onMessage(ctx context.Context, id int64, m *models.Message) error {
	if m.From == nil || m.From.IsBot {
		return nil // channels posting as themselves, other bots
	}
	if c, ok := b.parseCommand(m); ok {
		return b.runCommand(ctx, id, m, c)
	}
	text, _ := textOf(m)
	addressed := b.addressed(m)
	media := m.Text == "" && hasMedia(m)
	switch {
	case media && !addressed, !media && strings.TrimSpace(text) == "":
		return nil // service messages (joins, pins, topic changes), and media not meant for the bot
	case !addressed:
		return b.keepAsContext(ctx, id, m)
	}
	if ok, err := b.admit(ctx, id, m); !ok || err != nil {
		return err
	}
	if media {
		return b.replyOnce(ctx, id, placeOf(m), m.ID, cannotReadMedia)
	}
	return b.turn(ctx, id, m)
}

// addressed reports whether a message is meant for the bot: every message in
// a private chat; in groups, a mention of the bot or a reply to it.
func (b *Bot) addressed(m *models.Message) bool {
	if m.Chat.Type == models.ChatTypePrivate {
		return true
	}
	if r := m.ReplyToMessage; r != nil && r.From != nil && r.From.ID == b.me.ID {
		return true
	}
	text, entities := textOf(m)
	for _, e := range entities {
		switch e.Type {
		case models.MessageEntityTypeMention:
			if strings.EqualFold(entityText(text, e), "@"+b.me.Username) {
				return true
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && e.User.ID == b.me.ID {
				return true
			}
		}
	}
	return false
}

// keepAsContext stores a group message not meant for the bot, so that when
// someone does ask, the bot knows what was said.
func (b *Bot) keepAsContext(ctx context.Context, id int64, m *models.Message) error {
	_, err := b.db.SaveUserMessage(ctx, chatOf(m.Chat), b.userMessage(id, m))
	return err
}

func (b *Bot) userMessage(id int64, m *models.Message) ryo.Message {
	sender := userOf(m.From)
	text, _ := textOf(m)
	msg := ryo.Message{Place: placeOf(m), Sender: &sender, Kind: ryo.KindUser, Text: text,
		TelegramID: m.ID, UpdateID: id}
	if m.ReplyToMessage != nil {
		msg.ReplyTo = m.ReplyToMessage.ID
	}
	return msg
}

func (b *Bot) onMembership(ctx context.Context, u *models.ChatMemberUpdated) error {
	b.log.Info("bot membership changed", "chat_id", u.Chat.ID, "chat", u.Chat.Title, "status", string(u.NewChatMember.Type))
	return b.db.SaveChat(ctx, chatOf(u.Chat))
}

// addressee returns where to tell the person about a failed update: only
// for messages that were meant for the bot.
func (b *Bot) addressee(raw json.RawMessage) (ryo.Place, int, bool) {
	var upd models.Update
	if json.Unmarshal(raw, &upd) != nil || upd.Message == nil || upd.Message.From == nil {
		return ryo.Place{}, 0, false
	}
	m := upd.Message
	if _, isCmd := b.parseCommand(m); !isCmd && !b.addressed(m) {
		return ryo.Place{}, 0, false
	}
	return placeOf(m), m.ID, true
}
