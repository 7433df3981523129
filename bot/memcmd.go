package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/toolbus"
)

// Usage lines, the answer to bad arguments.
const (
	usageMemory      = "Usage: /memory — lists what I remember for you (in a group: the group's). /forget <id> forgets one."
	usageMemoryAdmin = "Usage:\n/memory — your memories\n/memory <@username or user id> — theirs\n/memory search <words>\n" +
		"/memory add <@username or user id> <text> [#tag …]\n/memory forget <id>"
	usageForget = "Usage: /forget <id> — the id is the number /memory shows before each memory."
	usageTags   = "Usage:\n/tags — the most used tags\n/tags <tag> — where one is used\n/tags rename <old> <new>\n/tags delete <tag>"
)

// memoryCmd is /memory: a person's own memories (a group's, in a group),
// and for admins, anyone's, a search of all, adding and forgetting.
func (b *Bot) memoryCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	if len(args) == 0 {
		shelf := ryo.ShelfOf(c.caller())
		label := "Your memories"
		if shelf.Scope == ryo.ScopeGroup {
			label = "This group's memories"
		}
		return b.sendView(ctx, c, viewMemories, viewSubject{Scope: shelf.Scope, ID: shelf.ID, Label: label},
			"I don't remember anything here yet. Ask me to remember something, and it shows up here.")
	}
	if !b.isAdmin(c.user) {
		return b.reply(ctx, c, usageMemory)
	}
	rest := strings.TrimSpace(strings.TrimPrefix(c.args, args[0]))
	if c.chat.Type.IsGroup() && args[0] != "forget" && args[0] != "add" {
		return b.reply(ctx, c, "That would show people's memories to everyone here: ask me in a private chat.")
	}
	switch args[0] {
	case "search":
		if rest == "" {
			return b.reply(ctx, c, usageMemoryAdmin)
		}
		return b.sendView(ctx, c, viewSearch, viewSubject{Query: rest, Admin: true}, fmt.Sprintf("No memory matches “%s”.", rest))
	case "add":
		return b.memoryAdd(ctx, c, rest)
	case "forget":
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || id <= 0 {
			return b.reply(ctx, c, usageMemoryAdmin)
		}
		return b.askToForget(ctx, c, ryo.EveryShelf(), id, ryo.OriginAdmin)
	}
	c.args = args[0]
	u, problem, err := b.target(ctx, c)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem+"\n\n"+usageMemoryAdmin)
	}
	return b.sendView(ctx, c, viewMemories, viewSubject{Scope: ryo.ScopeUser, ID: u.ID, Label: displayName(u) + "'s memories", Admin: true},
		fmt.Sprintf("I don't remember anything for %s.", displayName(u)))
}

// memoryAdd is /memory add <user> <text> [#tag …]: an admin stores a
// memory on a person's own shelf.
func (b *Bot) memoryAdd(ctx context.Context, c call, rest string) error {
	who, text, _ := strings.Cut(rest, " ")
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
	if problem != "" || len(words) == 0 {
		return b.reply(ctx, c, usageMemoryAdmin)
	}
	m, err := b.db.Remember(ctx, ryo.Memory{Scope: ryo.ScopeUser, Owner: u.ID, Chat: c.chat.ID,
		Content: strings.Join(words, " "), Tags: tags, AddedBy: c.user.ID,
		Embedding: b.cfg.Recall.Vector(ctx, strings.Join(words, " "))})
	if err == memory.ErrTooLong {
		return b.reply(ctx, c, "That is too long: a memory is at most 2000 characters.")
	}
	if err != nil {
		return err
	}
	b.log.Info("memory added by an admin", "by", c.user.ID, "user_id", u.ID, "memory", m.ID)
	return b.reply(ctx, c, fmt.Sprintf("🧠 Remembered for %s as #%d.", displayName(u), m.ID))
}

// forgetCmd is /forget <id>: a person forgets one of their memories (one
// of the group's, in a group), after confirming.
func (b *Bot) forgetCmd(ctx context.Context, c call) error {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(c.args), "#"), 10, 64)
	if err != nil || id <= 0 {
		return b.reply(ctx, c, usageForget)
	}
	return b.askToForget(ctx, c, ryo.ShelfOf(c.caller()), id, ryo.OriginCommand)
}

// askToForget asks the person to confirm forgetting memory id on shelf s,
// showing the memory.
func (b *Bot) askToForget(ctx context.Context, c call, s ryo.Shelf, id int64, origin ryo.Origin) error {
	m, found, err := b.db.Memory(ctx, s, id)
	if err != nil {
		return err
	}
	if !found {
		return b.reply(ctx, c, fmt.Sprintf("There is no memory #%d here — /memory lists them with their ids.", id))
	}
	args, _ := json.Marshal(map[string]int64{"memory_id": id})
	summary := fmt.Sprintf("Forget memory #%d: “%s”", m.ID, m.Content)
	if origin.ForAdmins() && m.Scope == ryo.ScopeUser {
		summary = fmt.Sprintf("Forget %s's memory #%d: “%s”", orSomeone(m.OwnerName), m.ID, m.Content)
	}
	a := ryo.Action{ID: newActionID(), Requester: c.user.ID, CallID: fmt.Sprintf("u%d-cmd", c.update), Tool: "forget",
		Args: args, ArgsHash: toolbus.ArgsHash(args), Key: toolbus.Key(c.update, 0, "forget", args), Reason: toolbus.HoldDestructive,
		Summary: summary, Origin: origin, ExpiresAt: b.cfg.Clock.Now().Add(b.cfg.ConfirmTTL)}
	if _, err := b.db.SaveCommandAction(ctx, c.update, c.place, a); err != nil {
		return err
	}
	return b.showAction(ctx, talk{id: c.update, w: c.w, chat: c.chat, place: c.place, replyTo: c.msg.ID, person: c.user})
}

// runCommandAction runs a confirmed action a command asked for: a person's
// own through the tool bus, an admin's forget on whichever shelf holds the
// memory.
func (b *Bot) runCommandAction(ctx context.Context, a ryo.Action, caller ryo.Caller) toolbus.Result {
	if !a.Origin.ForAdmins() {
		return b.runAction(ryo.WithCaller(ctx, caller), a, func(ryo.Step) {})
	}
	res := toolbus.Result{CallID: a.CallID, Key: a.Key, Tool: a.Tool, Args: a.Args, Attempts: 1}
	var args struct {
		ID int64 `json:"memory_id"`
	}
	if a.Tool != "forget" || json.Unmarshal(a.Args, &args) != nil || toolbus.ArgsHash(a.Args) != a.ArgsHash {
		res.Status, res.Error = toolbus.StatusDenied, toolbus.Errorf("arguments_changed", "not the action that was shown")
		return res
	}
	_, found, err := b.db.Forget(ctx, ryo.EveryShelf(), args.ID)
	switch {
	case err != nil:
		res.Status, res.Error = toolbus.StatusError, toolbus.Errorf(toolbus.CodeFailed, "%v", err)
	case !found:
		res.Status, res.Error = toolbus.StatusError, toolbus.Errorf("not_found", "memory #%d is gone already", args.ID)
	default:
		res.Status = toolbus.StatusOK
	}
	return res
}

// tagsCmd is /tags for admins.
func (b *Bot) tagsCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	switch {
	case len(args) == 0:
		return b.sendView(ctx, c, viewTags, viewSubject{Admin: true}, "No tags yet: they come with the conversations.")
	case args[0] == "rename" && len(args) == 3:
		old, renamed := normalTag(args[1]), normalTag(args[2])
		if old == "" || renamed == "" || old == renamed {
			return b.reply(ctx, c, usageTags)
		}
		n, err := b.db.RenameTag(ctx, old, renamed)
		if err != nil {
			return err
		}
		b.log.Info("tag renamed", "by", c.user.ID, "from", old, "to", renamed, "uses", n)
		return b.reply(ctx, c, fmt.Sprintf("🏷 Renamed “%s” to “%s” (%d uses).", old, renamed, n))
	case args[0] == "delete" && len(args) == 2:
		tag := normalTag(args[1])
		n, err := b.db.DeleteTag(ctx, tag)
		if err != nil {
			return err
		}
		b.log.Info("tag deleted", "by", c.user.ID, "tag", tag, "uses", n)
		return b.reply(ctx, c, fmt.Sprintf("🗑 Deleted the tag “%s” (%d uses).", tag, n))
	case args[0] == "rename" || args[0] == "delete" || len(args) > 1:
		return b.reply(ctx, c, usageTags)
	}
	if c.chat.Type.IsGroup() {
		return b.reply(ctx, c, "That would show other chats' messages here: ask me in a private chat.")
	}
	tag := normalTag(args[0])
	return b.sendView(ctx, c, viewTagged, viewSubject{Tag: tag, Admin: true}, fmt.Sprintf("Nothing is tagged “%s”.", tag))
}

// normalTag is a tag as stored: lower case, without a leading #.
func normalTag(s string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "#"))
}

// caller is whom and where a command runs for.
func (c call) caller() ryo.Caller { return ryo.Caller{Person: c.user, Chat: c.chat, Place: c.place} }
