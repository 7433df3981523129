package bot

import (
	"strings"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
)

func userOf(u *models.User) ryo.User {
	if u == nil {
		return ryo.User{}
	}
	return ryo.User{ID: u.ID, Username: u.Username, FirstName: u.FirstName, LastName: u.LastName,
		LanguageCode: u.LanguageCode, IsBot: u.IsBot}
}

func chatOf(c models.Chat) ryo.Chat {
	title := c.Title
	if title == "" {
		title = strings.TrimSpace(c.FirstName + " " + c.LastName)
	}
	return ryo.Chat{ID: c.ID, Type: ryo.ChatType(c.Type), Title: title, Username: c.Username, IsForum: c.IsForum}
}

// placeOf is where a message was written: its chat, and its forum topic when
// it belongs to one.
func placeOf(m *models.Message) ryo.Place {
	p := ryo.Place{ChatID: m.Chat.ID}
	if m.IsTopicMessage {
		p.Thread = m.MessageThreadID
	}
	return p
}

// entityText returns the text an entity covers. Telegram measures entities in
// UTF-16 code units, not bytes.
func entityText(text string, e models.MessageEntity) string {
	units := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(units) {
		return ""
	}
	return string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
}

// textOf returns a message's text or caption with its entities.
func textOf(m *models.Message) (string, []models.MessageEntity) {
	if m.Text != "" {
		return m.Text, m.Entities
	}
	return m.Caption, m.CaptionEntities
}

// hasMedia reports whether the message carries something other than text the
// bot cannot read yet.
func hasMedia(m *models.Message) bool {
	return m.Sticker != nil || len(m.Photo) > 0 || m.Voice != nil || m.Video != nil || m.VideoNote != nil ||
		m.Audio != nil || m.Document != nil || m.Animation != nil || m.Location != nil || m.Contact != nil ||
		m.Poll != nil || m.Dice != nil || m.Game != nil || m.Venue != nil || m.Story != nil ||
		m.PaidMedia != nil || m.Checklist != nil || m.Invoice != nil
}
