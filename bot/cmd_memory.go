package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

// memoryCommand is /memory.
func (b *Bot) memoryCommand(p lang.Printer) command {
	return command{name: "memory", help: p.Sprintf("what I remember for you (in a group: for the group)"), private: privateWithArgs, run: b.memoryCmd}
}

// Usage lines of /memory, the answer to bad arguments.
const (
	usageMemory      = "Usage: /memory — lists what I remember for you (in a group: the group's). /forget <id> forgets one."
	usageMemoryAdmin = "Usage:\n/memory — your memories\n/memory <@username or user id> — theirs\n/memory search <words>\n" +
		"/memory add <@username or user id> <text> [#tag …]\n/memory forget <id>"
)

// memoryCmd is /memory: a person's own memories (a group's, in a group),
// and for admins, anyone's, a search of all, adding and forgetting.
func (b *Bot) memoryCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	if len(args) == 0 {
		shelf := ryo.ShelfOf(c.caller())
		label := c.p.Sprintf("Your memories")
		if shelf.Scope == ryo.ScopeGroup {
			label = c.p.Sprintf("This group's memories")
		}
		return b.sendView(ctx, c, viewMemories, viewSubject{Scope: shelf.Scope, ID: shelf.ID, Label: label},
			c.p.Sprintf("I don't remember anything here yet. Ask me to remember something, and it shows up here."))
	}
	if !b.isAdmin(c.user) {
		return b.reply(ctx, c, c.p.Sprintf(usageMemory))
	}
	rest := strings.TrimSpace(strings.TrimPrefix(c.args, args[0]))
	switch args[0] {
	case "search":
		if rest == "" {
			return b.reply(ctx, c, c.p.Sprintf(usageMemoryAdmin))
		}
		return b.sendView(ctx, c, viewSearch, viewSubject{Query: rest, Admin: true}, c.p.Sprintf("No memory matches “%s”.", rest))
	case "add":
		return b.memoryAdd(ctx, c, rest)
	case "forget":
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || id <= 0 {
			return b.reply(ctx, c, c.p.Sprintf(usageMemoryAdmin))
		}
		return b.askToForget(ctx, c, ryo.EveryShelf(), id, ryo.OriginAdmin)
	}
	c.args = args[0]
	u, problem, err := b.target(ctx, c)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem+"\n\n"+c.p.Sprintf(usageMemoryAdmin))
	}
	return b.sendView(ctx, c, viewMemories, viewSubject{Scope: ryo.ScopeUser, ID: u.ID, Label: c.p.Sprintf("%s's memories", displayName(c.p, u)), Admin: true},
		c.p.Sprintf("I don't remember anything for %s.", displayName(c.p, u)))
}

// memoryAdd is /memory add <user> <text> [#tag …]: an admin stores a
// memory on a person's own shelf.
func (b *Bot) memoryAdd(ctx context.Context, c call, rest string) error {
	who, text := cutWord(rest)
	c.args = who
	u, problem, err := b.target(ctx, c)
	if err != nil {
		return err
	}
	var words, tags []string
	for _, w := range strings.Fields(text) {
		if len(w) > 1 && strings.HasPrefix(w, "#") {
			tags = append(tags, strings.ToLower(strings.TrimPrefix(w, "#")))
		} else {
			words = append(words, w)
		}
	}
	switch {
	case problem != "" && who != "":
		return b.reply(ctx, c, problem+"\n\n"+c.p.Sprintf(usageMemoryAdmin))
	case problem != "" || len(words) == 0:
		return b.reply(ctx, c, c.p.Sprintf(usageMemoryAdmin))
	}
	m, err := b.db.Remember(ctx, ryo.Memory{Scope: ryo.ScopeUser, Owner: u.ID, Chat: c.chat.ID,
		Content: strings.Join(words, " "), Tags: tags, AddedBy: c.user.ID,
		Embedding: b.cfg.Recall.Vector(ctx, strings.Join(words, " "))})
	if err == memory.ErrTooLong {
		return b.reply(ctx, c, c.p.Sprintf("That is too long: a memory is at most 2000 characters."))
	}
	if err != nil {
		return err
	}
	b.log.InfoContext(ctx, "memory added by an admin", "by", c.user.ID, "user_id", u.ID, "memory", m.ID)
	return b.reply(ctx, c, c.p.Sprintf("🧠 Remembered for %s as #%d.", displayName(c.p, u), m.ID))
}
