package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/toolbus"
)

// forgetCommand is /forget.
func (b *Bot) forgetCommand(p lang.Printer) command {
	return command{name: "forget", help: p.Sprintf("make me forget one memory: /forget <id>"), run: b.forgetCmd}
}

// usageForget is the answer to bad arguments of /forget.
const (
	usageForget = "Usage: /forget <id> — the id is the number /memory shows before each memory."
)

// forgetCmd is /forget <id>: a person forgets one of their memories (one
// of the group's, in a group), after confirming.
func (b *Bot) forgetCmd(ctx context.Context, c call) error {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(c.args), "#"), 10, 64)
	if err != nil || id <= 0 {
		return b.reply(ctx, c, c.p.Sprintf(usageForget))
	}
	return b.askToForget(ctx, c, ryo.ShelfOf(c.caller()), id, ryo.OriginCommand)
}

// askToForget asks the person to confirm forgetting memory id on shelf s,
// showing the memory: with forget on the conversation's own shelf, or for
// an admin with forget_any on every shelf.
func (b *Bot) askToForget(ctx context.Context, c call, s ryo.Shelf, id int64, origin ryo.Origin) error {
	_, found, err := b.db.Memory(ctx, s, id)
	if err != nil {
		return err
	}
	if !found {
		return b.reply(ctx, c, c.p.Sprintf("There is no memory #%d here — /memory lists them with their ids.", id))
	}
	tool := "forget"
	if origin.ForAdmins() {
		tool = "forget_any"
	}
	args, _ := json.Marshal(map[string]int64{"memory_id": id})
	return b.askCommand(ctx, c, tool, args, origin)
}

// askCommand asks the person to confirm a command's call of tool, one of
// the bot's own, with args: the action is stored once per update and shown
// in a prompt.
func (b *Bot) askCommand(ctx context.Context, c call, tool string, args json.RawMessage, origin ryo.Origin) error {
	call := toolbus.Call{ID: fmt.Sprintf("u%d-cmd", c.update), Tool: tool, Args: args, Key: toolbus.Key(c.update, 0, tool, args)}
	a := b.newAction(lang.NewContext(ryo.WithCaller(ctx, c.caller()), c.p), c.user, call, b.commandTools.Hold(call), origin)
	if _, err := b.db.SaveCommandAction(ctx, c.update, c.place, a); err != nil {
		return err
	}
	return b.showAction(ctx, talk{id: c.update, w: c.w, chat: c.chat, place: c.place, replyTo: c.msg.ID, person: c.user, words: c.p})
}
