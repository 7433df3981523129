package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/render"
)

// command is one slash command.
type command struct {
	name  string
	help  string
	admin bool // shown to and run for admins only
	run   func(ctx context.Context, c call) error
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
}

// commands lists the bot's commands, in the order /help shows them.
func (b *Bot) commands() []command {
	return []command{
		{name: "start", help: "introduce yourself and see what I can do", run: b.start},
		{name: "help", help: "list the commands you can use", run: b.help},
		{name: "reset", help: "make me forget this conversation (history stays stored)", run: b.reset},
		{name: "memory", help: "what I remember for you (in a group: for the group)", run: b.memoryCmd},
		{name: "forget", help: "make me forget one memory: /forget <id>", run: b.forgetCmd},
		{name: "tags", help: "the tags of the conversations: /tags, /tags <tag>, /tags rename <old> <new>, /tags delete <tag>", admin: true, run: b.tagsCmd},
		{name: "approvals", help: "recent confirmations and who decided them", admin: true, run: b.approvals},
		{name: "deadletter", help: "updates I could not handle: /deadletter, /deadletter retry <update id> or all", admin: true, run: b.deadLetterCmd},
		{name: "users", help: "the people I know, with their roles", admin: true, run: b.users},
		{name: "allow", help: "let someone use me: /allow @name, a user id, or in reply to their message", admin: true, run: b.allow},
		{name: "ban", help: "stop someone using me: /ban @name, a user id, or in reply", admin: true, run: b.ban},
		{name: "promote", help: "make someone an admin: /promote @name, a user id, or in reply", admin: true, run: b.promote},
		{name: "demote", help: "make an admin a normal user again: /demote @name, a user id, or in reply", admin: true, run: b.demote},
	}
}

// menu is the command menu Telegram shows everyone.
func (b *Bot) menu() []models.BotCommand {
	var cmds []models.BotCommand
	for _, c := range b.commands() {
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
func (b *Bot) parseCommand(m *models.Message) (parsedCommand, bool) {
	if len(m.Entities) == 0 || m.Entities[0].Type != models.MessageEntityTypeBotCommand || m.Entities[0].Offset != 0 {
		return parsedCommand{}, false
	}
	word := entityText(m.Text, m.Entities[0])
	name, target, direct := strings.Cut(strings.TrimPrefix(word, "/"), "@")
	if direct && !strings.EqualFold(target, b.me.Username) {
		return parsedCommand{}, false
	}
	args := strings.TrimSpace(strings.TrimPrefix(m.Text, word))
	return parsedCommand{name: strings.ToLower(name), args: args, direct: direct}, true
}

func (b *Bot) runCommand(ctx context.Context, j *job, m *models.Message, p parsedCommand) error {
	id := j.id
	known := slices.ContainsFunc(b.commands(), func(cmd command) bool { return cmd.name == p.name })
	if !known && m.Chat.Type != models.ChatTypePrivate && !p.direct {
		return nil // a bare unknown command in a group may be another bot's
	}
	if ok, err := b.admit(ctx, j, m); !ok || err != nil {
		return err
	}
	user, err := b.db.SaveUser(ctx, userOf(m.From), false) // with the role stored now: admins change it at run time
	if err != nil {
		return err
	}
	c := call{update: id, w: j.w, msg: m, chat: chatOf(m.Chat), place: placeOf(m), user: user, args: p.args}
	for _, cmd := range b.commands() {
		if cmd.name == p.name && (!cmd.admin || b.isAdmin(c.user)) {
			return cmd.run(ctx, c)
		}
	}
	// An admin command looks unknown to everyone else: they are shown nothing of it.
	return b.reply(ctx, c, fmt.Sprintf("I don't know /%s. /help lists what I can do.", p.name))
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

func (b *Bot) start(ctx context.Context, c call) error {
	user, err := b.db.SaveUser(ctx, c.user, true)
	if err != nil {
		return err
	}
	how := "Just write to me."
	if c.chat.Type.IsGroup() {
		how = fmt.Sprintf("In this group, mention me (@%s) or reply to one of my messages.", b.me.Username)
	}
	return b.reply(ctx, c, fmt.Sprintf("Hi %s! I'm %s, an assistant running on a local language model. %s\n\n/help lists the commands you can use.",
		firstName(user), b.me.FirstName, how))
}

func (b *Bot) help(ctx context.Context, c call) error {
	var lines []string
	for _, cmd := range b.commands() {
		if !cmd.admin || b.isAdmin(c.user) {
			lines = append(lines, fmt.Sprintf("/%s — %s", cmd.name, cmd.help))
		}
	}
	intro := "Write to me and I answer."
	if c.chat.Type.IsGroup() {
		intro = fmt.Sprintf("In groups I answer when you mention me (@%s) or reply to one of my messages.", b.me.Username)
	}
	return b.reply(ctx, c, intro+"\n\n"+strings.Join(lines, "\n"))
}

func (b *Bot) reset(ctx context.Context, c call) error {
	if err := b.db.ResetContext(ctx, c.chat, c.place); err != nil {
		return err
	}
	return b.reply(ctx, c, "🧹 Done — I've forgotten our conversation so far. The history stays stored; I just start fresh from here.")
}

func firstName(u ryo.User) string {
	if u.FirstName != "" {
		return u.FirstName
	}
	return u.Name()
}
