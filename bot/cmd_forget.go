package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// forgetCommand is /forget.
func (b *Bot) forgetCommand() command {
	return command{name: "forget", help: "make me forget one memory: /forget <id>", run: b.forgetCmd}
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
