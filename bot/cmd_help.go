package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// helpCommand is /help.
func (b *Bot) helpCommand(p lang.Printer) command {
	return command{name: "help", help: p.Sprintf("list the commands you can use"), run: b.help}
}

// help lists the commands the asker may use. In a group it lists what
// runs there, and names the commands answered only in a private chat.
func (b *Bot) help(ctx context.Context, c call) error {
	group := c.chat.Type != ryo.ChatPrivate
	var lines, elsewhere []string
	for _, cmd := range b.commands(c.p) {
		switch {
		case cmd.admin && !b.isAdmin(c.user):
		case group && cmd.private == privateOnly:
			elsewhere = append(elsewhere, "/"+cmd.name)
		case group && cmd.private == privateByName:
			lines = append(lines, c.p.Sprintf("/%s — %s (here: in reply to their message)", cmd.name, cmd.help))
		default:
			lines = append(lines, fmt.Sprintf("/%s — %s", cmd.name, cmd.help))
		}
	}
	text := c.p.Sprintf("Write to me and I answer.") + "\n\n" + strings.Join(lines, "\n")
	if group {
		text = c.p.Sprintf("In groups I answer when you mention me (@%s) or reply to one of my messages.", b.me.Username) + "\n\n" +
			strings.Join(lines, "\n")
	}
	if len(elsewhere) > 0 {
		text += "\n\n" + c.p.Sprintf("Only in our private chat, so that nothing private shows here: %s.", strings.Join(elsewhere, ", "))
	}
	return b.reply(ctx, c, text)
}
