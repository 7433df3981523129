package bot

import "context"

// toolsCommand is /tools.
func (b *Bot) toolsCommand() command {
	return command{name: "tools", help: "what I can do: my tools by kind, what each needs, with an example", run: b.toolsCmd}
}

// toolsCmd sends the catalog of tools, opened at its kinds.
func (b *Bot) toolsCmd(ctx context.Context, c call) error {
	return b.sendView(ctx, c, viewTools, viewSubject{}, "I have no tools here: I answer from what I know.")
}
