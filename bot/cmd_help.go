package bot

import (
	"context"
	"fmt"
	"strings"
)

// helpCommand is /help.
func (b *Bot) helpCommand() command {
	return command{name: "help", help: "list the commands you can use", run: b.help}
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
