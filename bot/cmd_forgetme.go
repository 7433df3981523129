package bot

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/toolbus"
)

// forgetMeCommand is /forgetme. Only in a private chat, where nobody else
// sees its prompt or can press its buttons; asked in a group, it points
// there.
func (b *Bot) forgetMeCommand(p lang.Printer) command {
	return command{name: "forgetme", help: p.Sprintf("delete everything I keep about you, after you confirm"), private: privateOnly, run: b.forgetMe}
}

// forgetMe is /forgetme: a person asks for everything ryo keeps about
// them to be deleted. The prompt says what goes and what stays; after
// their yes, forget_me deletes it (memory's ForgetPerson).
func (b *Bot) forgetMe(ctx context.Context, c call) error {
	args, _ := json.Marshal(map[string]int64{"user_id": c.user.ID})
	return b.askCommand(ctx, c, "forget_me", args, ryo.OriginCommand)
}

// forgetMeSchema is forget_me's arguments: the person, who must be the
// one who asks.
const forgetMeSchema = `{"type":"object","properties":{"user_id":{"type":"integer","minimum":1}},"required":["user_id"],"additionalProperties":false}`

// forgetMeTool is forget_me, the tool behind /forgetme, of the bot's own
// commands: the model never sees it.
func forgetMeTool(db *memory.DB) toolbus.Spec {
	return toolbus.Spec{Name: "forget_me", Effect: toolbus.Destructive, Tags: []string{"person:forget"}, Category: toolbus.YourData,
		Examples:    []toolbus.Example{{Question: "/forgetme", Arguments: json.RawMessage(`{"user_id":7123456789}`)}},
		Description: "Delete everything ryo keeps about the person who asks: their messages, memories, requests and profile.",
		Schema:      json.RawMessage(forgetMeSchema),
		Timeout:     5 * time.Minute, // in batches, each with the store's own deadline
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			id, err := forgetMeArgs(ctx, args)
			if err != nil {
				return nil, err
			}
			return db.ForgetPerson(ctx, id)
		}),
		Explain: func(ctx context.Context, args json.RawMessage) string {
			id, err := forgetMeArgs(ctx, args)
			if err != nil {
				return ""
			}
			f, err := db.Footprint(ctx, id)
			if err != nil {
				return ""
			}
			return explainForgetMe(lang.FromContext(ctx), f)
		},
		// Whether the person was forgotten: their user row is gone. Run
		// again, it deletes whatever is left, which does no harm.
		Happened: func(ctx context.Context, args json.RawMessage) toolbus.Happening {
			id, err := forgetMeArgs(ctx, args)
			if err != nil {
				return toolbus.Unknown
			}
			_, known, err := db.FindUser(ctx, id)
			switch {
			case err != nil:
				return toolbus.Unknown
			case known:
				return toolbus.NotHappened
			}
			return toolbus.Happened
		}}
}

// forgetMeArgs reads forget_me's person, who must be the one it runs for.
func forgetMeArgs(ctx context.Context, raw json.RawMessage) (int64, error) {
	var args struct {
		UserID int64 `json:"user_id"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return 0, err
	}
	c, ok := ryo.CallerOf(ctx)
	if !ok || c.Person.ID != args.UserID {
		return 0, toolbus.Errorf("not_yours", "forget_me deletes only the data of the person who asks")
	}
	return args.UserID, nil
}

// explainForgetMe says what /forgetme deletes, and what stays.
func explainForgetMe(p lang.Printer, f memory.Footprint) string {
	var parts []string
	parts = append(parts, p.Sprintf("%d messages (yours, and all of our private chat)", f.Messages))
	parts = append(parts, p.Sprintf("%d memories of yours", f.Memories))
	if f.GroupMemories > 0 {
		parts = append(parts, p.Sprintf("%d memories you added to groups", f.GroupMemories))
	}
	parts = append(parts, p.Sprintf("%d requests you made, with their log", f.Actions))
	return p.Sprintf("Forget you: I delete %s, and your profile with your role and access (an admin would have to let you in again, if I only talk to people let in). "+
		"What others wrote, and what others added to groups, stays; so does the tier an admin put you in (with your id alone), "+
		"and this request in the log of requests (that you asked, and when), until the log is swept. You can start afresh at once.", strings.Join(parts, ", "))
}
