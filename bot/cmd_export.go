package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ryo-bot/ryo/lang"
)

// exportCommand is /export.
func (b *Bot) exportCommand(p lang.Printer) command {
	return command{name: "export", help: p.Sprintf("get everything I keep about you, as a file"), private: privateOnly, run: b.export}
}

// exportBudget is how much text one /export file holds at most (memory's
// Export budget): the newest messages, memories and actions that fit.
// Escaped as JSON, the worst text grows sixfold, which keeps the file well
// under the 50 MB a bot may upload.
const exportBudget = 6 << 20

// export is /export: a person gets, as a JSON file, everything ryo keeps
// about them — their user row, the messages they wrote, the memories of
// their shelf and those they added to groups, the actions they asked for
// with their audit log. Only in a private chat (asked in a group, it
// points there): the file is theirs alone. What does not fit is the
// oldest, counted in the file and in its caption.
func (b *Bot) export(ctx context.Context, c call) error {
	prior, err := b.db.Turn(ctx, c.update)
	if err != nil || prior.StatusMessageID != 0 {
		return err // sent by an earlier run
	}
	e, err := b.db.Export(ctx, c.user.ID, exportBudget)
	if err != nil {
		return err
	}
	var file bytes.Buffer
	enc := json.NewEncoder(&file)
	enc.SetEscapeHTML(false) // text as it was written: <, > and & are no threat in a file
	enc.SetIndent("", "  ")
	if err := enc.Encode(e); err != nil {
		return fmt.Errorf("encode an export: %w", err)
	}
	name := fmt.Sprintf("ryo-export-%d-%s.json", c.user.ID, e.ExportedAt.In(b.cfg.Location).Format("2006-01-02"))
	var id int
	err = c.w.idle(func() (err error) {
		id, err = b.tg.SendFile(ctx, c.place, c.msg.ID, name, file.Bytes(), exportCaption(c.p, e.LeftOut.Messages, e.LeftOut.Memories, e.LeftOut.Actions))
		return err
	})
	if err != nil {
		return err
	}
	b.log.InfoContext(ctx, "sent a person their data", "update_id", c.update, "user_id", c.user.ID, "bytes", file.Len())
	return b.record(ctx, "remember export", func(ctx context.Context) error {
		return b.db.SaveTurnStatus(ctx, c.update, c.place, id)
	})
}

// exportCaption says what the file holds, and what did not fit.
func exportCaption(p lang.Printer, messages, memories, actions int) string {
	caption := p.Sprintf("Everything I keep about you, as JSON. /forgetme deletes it.")
	if messages+memories+actions > 0 {
		caption += " " + p.Sprintf("It was too much for one file: your oldest %s, %s and %s are not in it (the file says how many); "+
			"/forgetme deletes them all the same.",
			p.Sprintf("%d messages", messages), p.Sprintf("%d memories", memories), p.Sprintf("%d requests", actions))
	}
	return caption
}
