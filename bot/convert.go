package bot

import (
	"strings"
	"time"
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

// seenIn is person from as Telegram showed them with message m: seen
// with their username when m was sent.
func seenIn(m *models.Message, from *models.User) ryo.User {
	u := userOf(from)
	if m.Date > 0 {
		u.Seen = time.Unix(int64(m.Date), 0)
	}
	return u
}

// pressedBy is the person who pressed a button. A press carries no date
// and may be handled long after it was made (ryo was away): it shows the
// presser with their username no later than the message under the
// button was sent, or, when that message is not shown, no later than
// anyone else was seen with it — so that a name its presser has since
// given up is not taken back from its new holder.
func pressedBy(q *models.CallbackQuery) ryo.User {
	u := userOf(&q.From)
	u.Seen = time.Unix(1, 0)
	if m := q.Message.Message; m != nil && m.Date > 0 {
		u.Seen = time.Unix(int64(m.Date), 0)
	}
	return u
}

func chatOf(c models.Chat) ryo.Chat {
	title := c.Title
	if title == "" {
		title = strings.TrimSpace(c.FirstName + " " + c.LastName)
	}
	return ryo.Chat{ID: c.ID, Type: ryo.ChatType(c.Type), Title: title, Username: c.Username, IsForum: c.IsForum}
}

// senderOf is who wrote m, or nil when it names no one. A message sent on
// behalf of a chat — by an anonymous group admin, by someone posting as
// their channel, or forwarded by a linked channel — comes from that chat:
// Telegram then puts a stand-in in from (GroupAnonymousBot, Channel_Bot,
// Telegram). The chat stands for the person, with its (negative) id and its
// title as their name, so that history names them and access applies.
func senderOf(m *models.Message) *models.User {
	if c := m.SenderChat; c != nil && c.ID != 0 {
		return &models.User{ID: c.ID, FirstName: chatOf(*c).Title, Username: c.Username}
	}
	if m.From == nil || m.From.ID == 0 {
		return nil
	}
	return m.From
}

// withSender returns m with from as its author, where the rest of the bot
// reads it; m itself is left as it is.
func withSender(m *models.Message, from *models.User) *models.Message {
	if m.From == from {
		return m
	}
	c := *m
	c.From = from
	return &c
}

// repliedTo is the message m replies to, or nil. In a forum topic Telegram
// makes every message a reply to the topic's creation; that is no reply to
// anyone.
func repliedTo(m *models.Message) *models.Message {
	if r := m.ReplyToMessage; r != nil && r.ForumTopicCreated == nil {
		return r
	}
	return nil
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
	if e.Offset < 0 || e.Length < 0 || e.Offset > len(units) || e.Length > len(units)-e.Offset {
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

// Bounds of a photo shown to the model: Telegram's own for a photo a bot
// sends, and a count of pixels well past any camera's, which keeps a
// picture that claims more (a pixel bomb) from being fetched as the one
// to show.
const (
	maxPhotoBytes  = ryo.MaxAttachmentBytes
	maxPhotoPixels = 40_000_000
)

// mediaOf is what a person sent with m besides its text, as stored with
// it: of a photo, the largest size Telegram made that is within the bounds
// above, or its largest when none is (fetching it is then refused, with a
// reason). A document's or a voice note's file joins here.
func mediaOf(m *models.Message) []ryo.Media {
	if rec, ok := recordingOf(m); ok {
		return []ryo.Media{rec}
	}
	if isDocument(m) {
		return []ryo.Media{documentMedia(m.Document)}
	}
	if len(m.Photo) == 0 {
		return nil
	}
	area := func(p models.PhotoSize) int64 { return int64(p.Width) * int64(p.Height) }
	fits := func(p models.PhotoSize) bool { return int64(p.FileSize) <= maxPhotoBytes && area(p) <= maxPhotoPixels }
	best := m.Photo[0]
	for _, p := range m.Photo[1:] {
		if fits(p) && !fits(best) || fits(p) == fits(best) && area(p) > area(best) {
			best = p
		}
	}
	return []ryo.Media{{Kind: ryo.MediaPhoto, FileID: best.FileID, UniqueID: best.FileUniqueID,
		Width: best.Width, Height: best.Height, Size: int64(best.FileSize)}}
}

// hasMedia reports whether the message carries something other than text the
// bot cannot read yet.
func hasMedia(m *models.Message) bool {
	return m.Sticker != nil || len(m.Photo) > 0 || m.Voice != nil || m.Video != nil || m.VideoNote != nil ||
		m.Audio != nil || m.Document != nil || m.Animation != nil || m.Location != nil || m.Contact != nil ||
		m.Poll != nil || m.Dice != nil || m.Game != nil || m.Venue != nil || m.Story != nil ||
		m.PaidMedia != nil || m.Checklist != nil || m.Invoice != nil
}
