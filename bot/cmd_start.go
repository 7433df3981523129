package bot

import (
	"context"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// startCommand is /start.
func (b *Bot) startCommand(p lang.Printer) command {
	return command{name: "start", help: p.Sprintf("introduce yourself and see what I can do"), run: b.start}
}

func (b *Bot) start(ctx context.Context, c call) error {
	user, err := b.db.SaveUser(ctx, c.user, true)
	if err != nil {
		return err
	}
	if cmd, ok := b.linkedCommand(c); ok {
		c.args = ""
		return cmd.run(ctx, c)
	}
	how := c.p.Sprintf("Just write to me.")
	if c.chat.Type.IsGroup() {
		how = c.p.Sprintf("In this group, mention me (@%s) or reply to one of my messages.", b.me.Username)
	}
	return b.reply(ctx, c, c.p.Sprintf("Hi %s! I'm %s, an assistant running on a local language model. %s\n\n/help lists the commands you can use.",
		firstName(user), b.me.FirstName, how))
}

// linkedCommand is the command a group's pointer to the private chat
// named: its button opens the chat with /start <name>. Only a command
// whose answer is private is run so, for whoever may run it, and only in
// its bare form — a list to look at, or how to use it — since anyone can
// make such a link and send it to an admin.
func (b *Bot) linkedCommand(c call) (command, bool) {
	if c.chat.Type != ryo.ChatPrivate || c.args == "" {
		return command{}, false
	}
	for _, cmd := range b.commands(c.p) {
		if cmd.name == c.args && cmd.private != anywhere && (!cmd.admin || b.isAdmin(c.user)) {
			return cmd, true
		}
	}
	return command{}, false
}

func firstName(u ryo.User) string {
	if u.FirstName != "" {
		return u.FirstName
	}
	return u.Name()
}
