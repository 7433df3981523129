package bot

import (
	"context"
	"fmt"
	"time"

	"github.com/go-telegram/bot/models"
)

// albumWindow is how long a photo of an album waits for the album's other
// parts: Telegram sends each photo as an update of its own, one soon after
// another, and may spread them over more than one getUpdates.
const albumWindow = 2 * time.Second

// errWait asks for the update to run again after a while; its slot is
// given back meanwhile, and the chat's later updates wait behind it.
type errWait struct{ d time.Duration }

func (e errWait) Error() string { return fmt.Sprintf("run again in %v", e.d) }

// albumWait is how long m, a photo of an album handled at now, still waits
// for the album's later parts, counted from when it reached the
// dispatcher (queued); 0 when m is no part of an album or has waited
// long enough. A part that waits is in the inbox all along: after a
// crash it waits again, beside its album's other parts.
func albumWait(m *models.Message, queued, now time.Time) time.Duration {
	if len(m.Photo) == 0 || m.MediaGroupID == "" || queued.IsZero() {
		return 0
	}
	return max(albumWindow-now.Sub(queued), 0)
}

// gatherAlbum stores the later parts of m's album that wait in the inbox
// behind it, so that the turn answering m shows the model the whole album:
// in a group only the part with the caption mentions the bot, and the
// others are context, which their own runs would store later. Parts meant
// for the bot are answered together with the last of them (see
// answeredLater) and are not gathered here.
func (b *Bot) gatherAlbum(ctx context.Context, j *job, m *models.Message) error {
	if m.MediaGroupID == "" {
		return nil
	}
	later, err := b.db.LaterFrom(ctx, m.Chat.ID, m.From.ID, j.id, laterLooked)
	if err != nil {
		return err
	}
	for _, raw := range later {
		upd, _, err := decodeUpdate(raw)
		if err != nil {
			continue
		}
		r := b.classify(&upd)
		if r.what != verdictKeep || r.msg.MediaGroupID != m.MediaGroupID || placeOf(r.msg) != placeOf(m) {
			continue
		}
		if err := b.keepAsContext(ctx, upd.ID, r.msg); err != nil {
			return err
		}
	}
	return nil
}
