package bot

import (
	"context"
	"strings"

	"github.com/ryo-bot/ryo/lang"
)

// tagsCommand is /tags.
func (b *Bot) tagsCommand(p lang.Printer) command {
	return command{name: "tags", help: p.Sprintf("the tags of the conversations: /tags, /tags <tag>, /tags rename <old> <new>, /tags delete <tag>"), admin: true, private: privateOnly, run: b.tagsCmd}
}

// usageTags is the answer to bad arguments of /tags.
const (
	usageTags = "Usage:\n/tags — the most used tags\n/tags <tag> — where one is used\n/tags rename <old> <new>\n/tags delete <tag>"
)

// tagsCmd is /tags for admins.
func (b *Bot) tagsCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	switch {
	case len(args) == 0:
		return b.sendView(ctx, c, viewTags, viewSubject{Admin: true}, c.p.Sprintf("No tags yet: they come with the conversations."))
	case args[0] == "rename" && len(args) == 3:
		old, renamed := normalTag(args[1]), normalTag(args[2])
		if old == "" || renamed == "" || old == renamed {
			return b.reply(ctx, c, c.p.Sprintf(usageTags))
		}
		n, err := b.db.RenameTag(ctx, old, renamed)
		if err != nil {
			return err
		}
		b.log.InfoContext(ctx, "tag renamed", "by", c.user.ID, "from", old, "to", renamed, "uses", n)
		return b.reply(ctx, c, c.p.Sprintf("🏷 Renamed “%s” to “%s” (%d uses).", old, renamed, n))
	case args[0] == "delete" && len(args) == 2:
		tag := normalTag(args[1])
		n, err := b.db.DeleteTag(ctx, tag)
		if err != nil {
			return err
		}
		b.log.InfoContext(ctx, "tag deleted", "by", c.user.ID, "tag", tag, "uses", n)
		return b.reply(ctx, c, c.p.Sprintf("🗑 Deleted the tag “%s” (%d uses).", tag, n))
	case args[0] == "rename" || args[0] == "delete" || len(args) > 1:
		return b.reply(ctx, c, c.p.Sprintf(usageTags))
	}
	tag := normalTag(args[0])
	return b.sendView(ctx, c, viewTagged, viewSubject{Tag: tag, Admin: true}, c.p.Sprintf("Nothing is tagged “%s”.", tag))
}

// normalTag is a tag as stored: lower case, without a leading #.
func normalTag(s string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "#"))
}
