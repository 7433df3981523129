package bot

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// toolName is the shape of a tool's name, echoed back when no tool has it.
var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// forceFor is how long a chosen tool waits for the person's next message.
const forceFor = 10 * time.Minute

// useCommand is /use.
func (b *Bot) useCommand(p lang.Printer) command {
	return command{name: "use", help: p.Sprintf("send your next message here to one tool: /use <tool>, /use off"), run: b.useCmd}
}

// useCmd chooses the tool the person's next message here goes to, drops
// it (/use off), or says which waits.
func (b *Bot) useCmd(ctx context.Context, c call) error {
	arg := strings.ToLower(strings.TrimSpace(c.args))
	switch arg {
	case "":
		f, ok, err := b.db.ForcedToolFor(ctx, c.user.ID, c.place)
		if err != nil {
			return err
		}
		if ok { // chosen, but perhaps no longer theirs to use: then the message will not go to it
			problem, err := b.unusable(ctx, c.p, c.user.ID, f.Tool)
			if err != nil {
				return err
			}
			ok = problem == ""
		}
		if !ok {
			return b.reply(ctx, c, c.p.Sprintf("Usage: /use <tool> — your next message here goes to that tool. /tools shows them; /use off changes your mind."))
		}
		left := max(f.Expires.Sub(b.cfg.Clock.Now()).Round(time.Minute), time.Minute)
		return b.reply(ctx, c, c.p.Sprintf("⚡ Your next message here goes to %s (for %d more min). /use off changes your mind.", f.Tool, int(left.Minutes())))
	case "off", "none", "stop":
		waiting, err := b.db.UnforceTool(ctx, c.user.ID, c.place)
		if err != nil {
			return err
		}
		if !waiting {
			return b.reply(ctx, c, c.p.Sprintf("No tool was waiting for your next message here."))
		}
		return b.reply(ctx, c, c.p.Sprintf("OK — your next message goes to whichever tool fits, or none."))
	}
	_, problem, err := b.forceTool(ctx, c.p, c.user, c.place, strings.TrimPrefix(arg, "/"))
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem)
	}
	return b.reply(ctx, c, chosen(c.p, strings.TrimPrefix(arg, "/")))
}

// chosen confirms that the next message goes to tool.
func chosen(w lang.Printer, tool string) string {
	return w.Sprintf("⚡ Your next message here goes to %s — within %d minutes. /use off changes your mind.", tool, int(forceFor.Minutes()))
}

// forceTool makes tool the one person's next message in place goes to,
// if it is a tool they may use; otherwise it says why not.
func (b *Bot) forceTool(ctx context.Context, w lang.Printer, person ryo.User, place ryo.Place, tool string) (time.Time, string, error) {
	if problem, err := b.unusable(ctx, w, person.ID, tool); problem != "" || err != nil {
		return time.Time{}, problem, err
	}
	expires := b.cfg.Clock.Now().Add(forceFor)
	if err := b.db.ForceTool(ctx, person.ID, place, tool, expires); err != nil {
		return time.Time{}, "", err
	}
	b.log.InfoContext(ctx, "tool chosen for the next message", "user_id", person.ID, "chat_id", place.ChatID, "tool", tool)
	return expires, "", nil
}

// unusable says why the person with id may not use tool now; "" when
// they may.
func (b *Bot) unusable(ctx context.Context, w lang.Printer, id int64, tool string) (string, error) {
	if b.cfg.Tools == nil {
		return w.Sprintf("I have no tools here: I answer from what I know."), nil
	}
	if _, ok := b.cfg.Tools.Lookup(tool); !ok {
		if !toolName.MatchString(tool) { // not echoed: it could be anything
			return w.Sprintf("There is no such tool. /tools shows them all."), nil
		}
		return w.Sprintf("There is no tool “%s”. /tools shows them all.", tool), nil
	}
	tools, err := b.toolsOfID(ctx, id)
	if err != nil {
		return "", err
	}
	if !mayUseTool(tools, tool) {
		return w.Sprintf("🔒 %s is not among the tools you may use here.", tool), nil
	}
	return "", nil
}
