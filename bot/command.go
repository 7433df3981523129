package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/render"
)

// command is one slash command.
type command struct {
	name    string
	help    string
	admin   bool    // shown to and run for admins only
	private privacy // where its answer may be shown
	run     func(ctx context.Context, c call) error
}

// privacy says where a command's answer may be shown. An answer for the
// asker's eyes only — people's ids and names, their memories, what was
// said in other chats — is given only in a private chat: asked in a group,
// the command answers with a pointer to the private chat instead, and
// shows the group nothing of it.
type privacy int

const (
	anywhere        privacy = iota
	privateOnly             // every form
	privateWithArgs         // the forms with arguments; bare, it shows the chat's own
	// privateByName: naming someone by @username or id goes through the
	// bot's directory of people; in reply to their message, it is about
	// someone the group sees already.
	privateByName
)

// of reports whether c, asked in a group, must be answered in a private
// chat instead.
func (p privacy) of(c call) bool {
	switch p {
	case privateOnly:
		return true
	case privateWithArgs:
		return strings.TrimSpace(c.args) != ""
	case privateByName:
		return strings.TrimSpace(c.args) != "" || repliedTo(c.msg) == nil
	}
	return false
}

// call is one use of a command.
type call struct {
	update int64
	w      *worker // the slot it runs in
	msg    *models.Message
	chat   ryo.Chat
	place  ryo.Place
	user   ryo.User
	args   string
	p      lang.Printer // the words of its answers, in the chat's language
}

// commands lists the bot's commands, in the order /help shows them, with
// their help in p's language. Adding a command is a file of its own
// (cmd_<name>.go) with its <name>Command, and one line here.
func (b *Bot) commands(p lang.Printer) []command {
	return []command{
		b.startCommand(p),
		b.helpCommand(p),
		b.resetCommand(p),
		b.stopCommand(p),
		b.toolsCommand(p),
		b.useCommand(p),
		b.memoryCommand(p),
		b.forgetCommand(p),
		b.forgetMeCommand(p),
		b.knowledgeCommand(p),
		b.modelCommand(p),
		b.settingsCommand(p),
		b.exportCommand(p),
		b.statsCommand(p),
		b.quotaCommand(p),
		b.tagsCommand(p),
		b.approvalsCommand(p),
		b.deadletterCommand(p),
		b.usersCommand(p),
		b.allowCommand(p),
		b.banCommand(p),
		b.promoteCommand(p),
		b.demoteCommand(p),
		b.tierCommand(p),
	}
}

// menu is the command menu Telegram shows everyone, in p's language.
func (b *Bot) menu(p lang.Printer) []models.BotCommand {
	var cmds []models.BotCommand
	for _, c := range b.commands(p) {
		if !c.admin {
			cmds = append(cmds, models.BotCommand{Command: c.name, Description: c.help})
		}
	}
	return cmds
}

// parsedCommand is a command found at the start of a message.
type parsedCommand struct {
	name string
	args string
	// direct is true for /name@thisbot, false for a bare /name.
	direct bool
}

// parseCommand finds a command meant for this bot at the start of m.
// Commands addressed to another bot (/start@otherbot) are not the bot's.
// A file's caption may be a command, as /knowledge add is.
func (b *Bot) parseCommand(m *models.Message) (parsedCommand, bool) {
	text, entities := textOf(m)
	if len(entities) == 0 || entities[0].Type != models.MessageEntityTypeBotCommand || entities[0].Offset != 0 {
		return parsedCommand{}, false
	}
	word := entityText(text, entities[0])
	name, target, direct := strings.Cut(strings.TrimPrefix(word, "/"), "@")
	if direct && !strings.EqualFold(target, b.me.Username) {
		return parsedCommand{}, false
	}
	args := strings.TrimSpace(strings.TrimPrefix(text, word))
	return parsedCommand{name: strings.ToLower(name), args: args, direct: direct}, true
}

func (b *Bot) runCommand(ctx context.Context, j *job, m *models.Message, p parsedCommand) error {
	id := j.id
	known := slices.ContainsFunc(b.commands(lang.For(lang.English)), func(cmd command) bool { return cmd.name == p.name })
	if !known && m.Chat.Type != models.ChatTypePrivate && !p.direct {
		return nil // a bare unknown command in a group may be another bot's
	}
	if ok, err := b.admit(ctx, j, m); !ok || err != nil {
		return err
	}
	if ok, err := b.allowed(ctx, j, m, false); !ok || err != nil {
		return err
	}
	user, err := b.db.SaveUser(ctx, seenIn(m, m.From), false) // with the role stored now: admins change it at run time
	if err != nil {
		return err
	}
	c := call{update: id, w: j.w, msg: m, chat: chatOf(m.Chat), place: placeOf(m), user: user, args: p.args}
	c.p = b.words(ctx, c.chat.ID, c.user)
	for _, cmd := range b.commands(c.p) {
		if cmd.name != p.name {
			continue
		}
		// In a group a private command is answered alike for everyone, so
		// that the group cannot tell from the answer who is an admin.
		if c.chat.Type != ryo.ChatPrivate && cmd.private.of(c) {
			return b.pointToPrivate(ctx, c, cmd)
		}
		if !cmd.admin || b.isAdmin(c.user) {
			return cmd.run(ctx, c)
		}
	}
	// Elsewhere an admin command looks unknown to everyone else: they are
	// shown nothing of it.
	return b.reply(ctx, c, c.p.Sprintf("I don't know /%s. /help lists what I can do.", p.name))
}

// pointToPrivate answers command cmd, asked in a group where its answer
// may not be shown, with a button that opens the private chat with the
// bot; there Telegram sends /start <name>, which runs the command.
func (b *Bot) pointToPrivate(ctx context.Context, c call, cmd command) error {
	b.log.InfoContext(ctx, "a private command asked in a group: pointed to the private chat", "update_id", c.update, "chat_id", c.chat.ID, "command", cmd.name)
	link := fmt.Sprintf("https://t.me/%s?start=%s", b.me.Username, cmd.name)
	return b.replyOnce(ctx, c.w, c.update, c.place, c.msg.ID,
		c.p.Sprintf("I answer /%s only in our private chat, so that nothing private shows here.", cmd.name),
		delivery.Button{Text: c.p.Sprintf("Open private chat"), URL: link})
}

func (b *Bot) reply(ctx context.Context, c call, text string) error {
	return b.replyOnce(ctx, c.w, c.update, c.place, c.msg.ID, text)
}

// replyOnce sends the one reply an update gets, with buttons if any,
// unless an earlier run of the same update already sent it, and remembers
// it.
func (b *Bot) replyOnce(ctx context.Context, w *worker, update int64, place ryo.Place, replyTo int, text string, buttons ...delivery.Button) error {
	prior, err := b.db.Turn(ctx, update)
	if err != nil || prior.StatusMessageID != 0 {
		return err
	}
	var id int
	part := render.Part{Plain: render.Text(text, render.MaxUnits).Plain} // plain text, cut to one message
	err = w.idle(func() (err error) {                                    // a reply may wait its turn at Telegram: other chats go on meanwhile
		if len(buttons) > 0 {
			id, err = b.tg.SendButtons(ctx, place, replyTo, part, buttons...)
			return err
		}
		id, err = b.tg.Send(ctx, place, replyTo, part)
		return err
	})
	if err != nil {
		return err
	}
	return b.record(ctx, "remember reply", func(ctx context.Context) error {
		return b.db.SaveTurnStatus(ctx, update, place, id)
	})
}

// caller is whom and where a command runs for.
func (c call) caller() ryo.Caller { return ryo.Caller{Person: c.user, Chat: c.chat, Place: c.place} }

// cutWord cuts s at its first space of any kind (a line break, a tab), as
// a person's keyboard or a pasted text may give it: the first word, and
// the rest trimmed.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}
