package bot

import (
	"context"

	"github.com/ryo-bot/ryo/lang"
)

// toolsCommand is /tools.
func (b *Bot) toolsCommand(p lang.Printer) command {
	return command{name: "tools", help: p.Sprintf("what I can do: my tools by kind, what each needs, with an example"), run: b.toolsCmd}
}

// toolsCmd sends the catalog of tools, opened at its kinds.
func (b *Bot) toolsCmd(ctx context.Context, c call) error {
	return b.sendView(ctx, c, viewTools, viewSubject{}, c.p.Sprintf("I have no tools here: I answer from what I know."))
}
