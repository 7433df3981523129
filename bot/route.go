package bot

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

const (
	cannotReadMedia = "I can't read that kind of message — I read text, photos, voice messages and " + documentTypes + ", so please send your question as one of those."
	staleButton     = "This button no longer works."
)

// errMalformed marks an update that is not a JSON object.
var errMalformed = errors.New("malformed update")

// verdict is what the bot does with an update.
type verdict int

const (
	verdictIgnore     verdict = iota // nothing stored, nothing sent; the update is done
	verdictKeep                      // a group message not meant for the bot: stored as context, no reply
	verdictAnswer                    // a message meant for the bot: answered, if its sender may use the bot
	verdictUnreadable                // media meant for the bot: a fixed reply says it reads only text
	verdictCommand                   // a command for this bot
	verdictPress                     // a button press: answered, whatever its data
	verdictMembership                // the bot was added to, removed from or blocked in a chat
	verdictEdit                      // a person's edited text message: edit.go
	verdictMigration                 // a group became a supergroup, with a new id: its settings go with it
)

var verdictNames = [...]string{"ignore", "keep", "answer", "unreadable", "command", "press", "membership", "edit", "migration"}

func (v verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return "unknown"
	}
	return verdictNames[v]
}

// route is what an update is to the bot, why, and what it carries.
type route struct {
	what   verdict
	why    string
	msg    *models.Message // keep, answer, unreadable, command: with its sender in From (see senderOf)
	cmd    parsedCommand
	press  *models.CallbackQuery
	member *models.ChatMemberUpdated
}

func ignored(why string) route { return route{what: verdictIgnore, why: why} }

// handle runs one update: it reads it, decides what it is, and does that.
func (b *Bot) handle(ctx context.Context, j *job) error {
	id := j.id
	upd, skipped, err := decodeUpdate(j.raw)
	if err != nil {
		return err
	}
	if len(skipped) > 0 {
		b.log.WarnContext(ctx, "update read in part: fields in a shape this version does not know were left out",
			"update_id", id, "fields", skipped)
	}
	r, err := b.inAnswerMode(ctx, b.classify(&upd)) // answermode.go
	if err != nil {
		return err
	}
	switch r.what {
	case verdictKeep:
		return b.keepAsContext(ctx, id, r.msg)
	case verdictAnswer, verdictUnreadable:
		return b.answerMessage(ctx, j, r)
	case verdictCommand:
		return b.runCommand(ctx, j, r.msg, r.cmd)
	case verdictPress:
		return b.onPress(ctx, j, r.press)
	case verdictMembership:
		return b.onMembership(ctx, r.member)
	case verdictEdit:
		return b.onEdit(ctx, j, r.msg)
	case verdictMigration:
		return b.onMigration(ctx, r.msg) // cmd_settings.go
	}
	b.log.DebugContext(ctx, "ignoring update", "update_id", id, "why", r.why)
	return nil
}

// classify decides what an update is. It reads nothing but the update and
// who the bot is, so every shape can be tested and fuzzed without a
// network; the table of shapes in shapes_test.go follows it row by row.
func (b *Bot) classify(upd *models.Update) route {
	switch {
	case upd.Message != nil:
		return b.classifyMessage(upd.Message)
	case upd.CallbackQuery != nil:
		// Stale, inline or under a message too old to show: every press
		// is answered, so that no spinner is left turning.
		return route{what: verdictPress, why: "a button press", press: upd.CallbackQuery}
	case upd.MyChatMember != nil:
		return classifyMembership(upd.MyChatMember)
	case upd.EditedMessage != nil:
		return b.classifyEdit(upd.EditedMessage)
	case upd.ChannelPost != nil, upd.EditedChannelPost != nil:
		return ignored("a channel post: the bot does not talk in channels")
	case upd.BusinessConnection != nil, upd.BusinessMessage != nil, upd.EditedBusinessMessage != nil,
		upd.DeletedBusinessMessages != nil:
		return ignored("business mode: the bot does not answer for a business account")
	case upd.ChatMember != nil, upd.ChatJoinRequest != nil, upd.ChatBoost != nil, upd.RemovedChatBoost != nil:
		return ignored("other people's membership and boosts: nothing for the bot to do")
	case upd.MessageReaction != nil, upd.MessageReactionCount != nil, upd.Poll != nil, upd.PollAnswer != nil:
		return ignored("reactions and polls: the bot does not read them")
	case upd.InlineQuery != nil, upd.ChosenInlineResult != nil:
		return ignored("inline mode: the bot has none")
	case upd.ShippingQuery != nil, upd.PreCheckoutQuery != nil, upd.PurchasedPaidMedia != nil:
		return ignored("payments: the bot sells nothing")
	}
	return ignored("a kind of update this version does not know")
}

// classifyMessage decides what a new message is.
func (b *Bot) classifyMessage(m *models.Message) route {
	from := senderOf(m)
	switch {
	case !knownChat(m.Chat) || m.Chat.Type == models.ChatTypeChannel:
		return ignored("no chat the bot talks in: missing, a channel, or a kind this version does not know")
	case m.MigrateToChatID != 0 || m.MigrateFromChatID != 0:
		return route{what: verdictMigration, why: "a group became a supergroup: its settings go with it", msg: m}
	case from == nil:
		return ignored("no sender")
	case from.IsBot:
		return ignored("another bot: two bots must never talk to each other in a loop")
	}
	m = withSender(m, from)
	text, _ := textOf(m)
	cmd, isCmd := b.parseCommand(m)
	switch {
	case m.IsAutomaticForward:
		// A channel post that mentions the bot must not make it answer
		// in the discussion group.
		return asContext(m, "a post of the linked channel, forwarded to its discussion group: context, never a question")
	case isCmd:
		return b.classifyCommand(m, cmd)
	case startsWithCommand(m):
		return ignored("a command for another bot")
	case !b.addressed(m):
		return asContext(m, "a group message not meant for the bot: kept as context")
	case len(m.Photo) > 0:
		return route{what: verdictAnswer, why: "a photo meant for the bot: a vision model looks at it", msg: m}
	case isRecordingMessage(m):
		return route{what: verdictAnswer, why: "a recording meant for the bot: it is transcribed, then answered", msg: m}
	case isDocument(m):
		return route{what: verdictAnswer, why: "a document meant for the bot: its text is read (document.go)", msg: m}
	case m.Text == "" && hasMedia(m):
		return route{what: verdictUnreadable, why: "media meant for the bot, which reads only text", msg: m}
	case strings.TrimSpace(text) == "":
		return ignored("nothing to read: a service message, or content this version does not know")
	}
	return route{what: verdictAnswer, why: "a message meant for the bot", msg: m}
}

// asContext keeps a group message not meant for the bot, when it has text.
func asContext(m *models.Message, why string) route {
	text, _ := textOf(m)
	switch {
	case len(m.Photo) > 0:
		return route{what: verdictKeep, why: why + " (a photo, kept with its file id)", msg: m}
	case isDocument(m) && strings.TrimSpace(m.Caption) != "":
		return route{what: verdictKeep, why: why + " (a document's caption; the file is not read)", msg: m}
	case m.Text == "" && hasMedia(m):
		return ignored("media not meant for the bot")
	case strings.TrimSpace(text) == "":
		return ignored("nothing to read: a service message (members, title, pins, topics, migration, video chats…)")
	}
	return route{what: verdictKeep, why: why, msg: m}
}

// classifyCommand decides about a command for this bot. A bare command the
// bot does not know, in a group, may be another bot's: it is left alone.
func (b *Bot) classifyCommand(m *models.Message, c parsedCommand) route {
	known := slices.ContainsFunc(b.commands(lang.For(lang.English)), func(cmd command) bool { return cmd.name == c.name })
	if !known && !c.direct && m.Chat.Type != models.ChatTypePrivate {
		return ignored("a bare command the bot does not know, in a group: maybe another bot's")
	}
	return route{what: verdictCommand, why: "a command for this bot", msg: m, cmd: c}
}

// classifyMembership decides about a change of the bot's own membership.
func classifyMembership(u *models.ChatMemberUpdated) route {
	if !knownChat(u.Chat) {
		return ignored("membership in no chat the bot knows")
	}
	return route{what: verdictMembership, why: "the bot's membership changed", member: u}
}

// knownChat reports whether c is a chat the bot can store: one with an id
// and a kind of chat it knows.
func knownChat(c models.Chat) bool {
	switch c.Type {
	case models.ChatTypePrivate, models.ChatTypeGroup, models.ChatTypeSupergroup, models.ChatTypeChannel:
		return c.ID != 0
	}
	return false
}

// startsWithCommand reports whether m starts with a command, for this bot
// or another.
func startsWithCommand(m *models.Message) bool {
	return len(m.Entities) > 0 && m.Entities[0].Type == models.MessageEntityTypeBotCommand && m.Entities[0].Offset == 0
}

// addressed reports whether a message is meant for the bot: every message in
// a private chat; in groups, a mention of the bot or a reply to it. A post
// its linked channel forwarded is never meant for it.
func (b *Bot) addressed(m *models.Message) bool {
	switch {
	case m.IsAutomaticForward:
		return false
	case m.Chat.Type == models.ChatTypePrivate, b.repliesToBot(m):
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

// repliesToBot reports whether m replies to one of the bot's messages (the
// creation of a topic the bot opened is none: see repliedTo).
func (b *Bot) repliesToBot(m *models.Message) bool {
	r := repliedTo(m)
	return r != nil && r.From != nil && r.From.ID == b.me.ID
}

// answerMessage answers a message meant for the bot, if its sender may use
// it. What its way through may need is read at once, with its sender
// stored (memory.StartTurn).
func (b *Bot) answerMessage(ctx context.Context, j *job, r route) error {
	start, err := b.db.StartTurn(ctx, seenIn(r.msg, r.msg.From), r.msg.Chat.ID, j.id, laterLooked)
	if err != nil {
		return err
	}
	if ok, err := b.letIn(ctx, j, r.msg, start.Sender); !ok || err != nil {
		return err
	}
	if r.what == verdictUnreadable { // answered too, so it costs the sender's allowance
		if ok, err := b.allowed(ctx, j, r.msg, false); !ok || err != nil {
			return err
		}
		return b.replyOnce(ctx, j.w, j.id, placeOf(r.msg), r.msg.ID, b.wordsOf(ctx, r.msg).Sprintf(cannotReadMedia))
	}
	if !start.Prior.CreatedAt.IsZero() { // begun before a stop: it goes on as it began, with what it showed and got
		return b.turn(ctx, j, r.msg, start)
	}
	if wait := albumWait(r.msg, j.queued, b.cfg.Clock.Now()); wait > 0 {
		return errWait{wait}
	}
	later, err := b.answeredLater(ctx, r.msg, start.Later)
	if err != nil {
		return err
	}
	if later {
		b.log.DebugContext(ctx, "a message answered together with its sender's next one", "update_id", j.id, "chat_id", r.msg.Chat.ID)
		return b.keep(ctx, j.id, r.msg)
	}
	if wait, err := b.giveWay(ctx, j, r.msg); wait || err != nil {
		if wait {
			b.log.DebugContext(ctx, "a turn gives way to someone else's question", "update_id", j.id, "chat_id", r.msg.Chat.ID)
			return errGoOnInChat
		}
		return err
	}
	if ok, err := b.allowed(ctx, j, r.msg, true); !ok || err != nil {
		return err
	}
	if err := b.gatherAlbum(ctx, j, r.msg); err != nil {
		return err
	}
	return b.turn(ctx, j, r.msg, start)
}

// keepAsContext stores a group message not meant for the bot, so that when
// someone does ask, the bot knows what was said — unless its sender may not
// use the bot: what they write never reaches the model. It is stored as
// context only, which goes after RYO_RETAIN_CONTEXT.
func (b *Bot) keepAsContext(ctx context.Context, id int64, m *models.Message) error {
	u, err := b.db.SaveUser(ctx, seenIn(m, m.From), false)
	if err != nil {
		return err
	}
	if !b.mayTalk(u) {
		b.log.DebugContext(ctx, "group message of someone who may not use the bot: not kept", "update_id", id, "chat_id", m.Chat.ID, "user_id", u.ID)
		return nil
	}
	_, err = b.db.SaveContextMessage(ctx, chatOf(m.Chat), b.userMessage(id, m))
	return err
}

// keep stores a message meant for the bot without answering it now: it is
// answered together with its sender's next one, or it came past their
// allowance. Either way it is part of the conversation, kept as a turn is.
func (b *Bot) keep(ctx context.Context, id int64, m *models.Message) error {
	_, err := b.db.SaveUserMessage(ctx, chatOf(m.Chat), b.userMessage(id, m))
	return err
}

func (b *Bot) userMessage(id int64, m *models.Message) ryo.Message {
	sender := seenIn(m, m.From)
	text, _ := textOf(m)
	msg := ryo.Message{Place: placeOf(m), Sender: &sender, Kind: ryo.KindUser, Text: text,
		TelegramID: m.ID, UpdateID: id, Media: mediaOf(m), MediaGroup: m.MediaGroupID}
	if r := repliedTo(m); r != nil {
		msg.ReplyTo = r.ID
	}
	return msg
}

func (b *Bot) onMembership(ctx context.Context, u *models.ChatMemberUpdated) error {
	b.log.InfoContext(ctx, "bot membership changed", "chat_id", u.Chat.ID, "chat", u.Chat.Title, "status", string(u.NewChatMember.Type))
	return b.db.SaveChat(ctx, chatOf(u.Chat))
}

// addressee returns where to tell the person about a failed update: only
// for messages that were meant for the bot.
func (b *Bot) addressee(raw json.RawMessage) (ryo.Place, int, bool) {
	upd, _, err := decodeUpdate(raw)
	if err != nil {
		return ryo.Place{}, 0, false
	}
	switch r := b.classify(&upd); r.what {
	case verdictAnswer, verdictUnreadable, verdictCommand:
		return placeOf(r.msg), r.msg.ID, true
	}
	return ryo.Place{}, 0, false
}
