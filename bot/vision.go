package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // formats whose size is read from their header, never their pixels
	_ "image/jpeg"
	_ "image/png"
	"log/slog"
	"slices"

	_ "golang.org/x/image/webp"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
)

// Vision says which model reads pictures; *ollama.Client is one.
type Vision interface {
	// VisionModel is the model to ask with pictures, or "" when there is
	// none; an error when it cannot be told now.
	VisionModel(ctx context.Context) (string, error)
}

// imagesShown is how many of the history's photos a turn shows the model
// at most, newest first, besides every photo of the album it answers.
const imagesShown = 3

// maxAlbum is the most photos Telegram puts in one album.
const maxAlbum = 10

// What a person is told when the photo they sent cannot be looked at.
const (
	noVision = "I can't look at photos: no model that reads pictures is set up — an admin can name one in RYO_VISION_MODEL. Your message is kept."
	photoBig = "That photo is too big for me to look at (more than 10 MB or 40 megapixels) — please send a smaller one."
	photoBad = "I could not fetch that photo from Telegram just now — please send it again in a moment."
	photoOdd = "That photo is in a form I can't read — please send it as an ordinary photo."
	noSight  = "I can't tell just now whether I can look at photos — the model server did not say. Your message is kept; please ask again in a moment."
)

// errPixelBomb is a picture whose header claims more pixels than a photo
// has: decoding it could take all the memory there is.
var errPixelBomb = errors.New("the picture claims more pixels than allowed")

// errNoPicture is a file whose header is of no picture the model reads.
var errNoPicture = errors.New("not a picture the model reads")

// sight is what a turn shows the model: its history, with the pictures
// fetched, and the model that reads them; or why it cannot look at the
// photo it answers.
type sight struct {
	history []ryo.Message
	model   string // "" for the chat model
	refusal string // the sentence the person is told instead of an answer; "" when none
	older   []int  // the messages of history shown with photos of theirs, besides the answered message and its album
}

// withoutOlder is the history with only the photos of the answered
// message and its album, or nil when it shows no others: a photo shown again that the
// model server cannot read must not fail every later turn.
func (s sight) withoutOlder() []ryo.Message {
	if len(s.older) == 0 {
		return nil
	}
	h := slices.Clone(s.history)
	for _, j := range s.older {
		h[j].Images = nil
	}
	return h
}

// look reads the turn's history and fetches its newest photos for a vision
// model to see: every photo of what the turn answers (see answersOf), up
// to an album's worth, and the newest of the others up to imagesShown, counting those that
// could not be fetched. Without a vision model,
// or when the answered message's own photo cannot be fetched, the turn is
// refused with a sentence; an older photo that cannot be is left out, with
// a log line. The fetching has the turn's deadline, and each download its
// own.
func (b *Bot) look(ctx context.Context, log *slog.Logger, t talk) (sight, error) {
	ctx, cancel := t.bounded(ctx)
	defer cancel()
	history, err := b.db.History(ctx, t.place, b.cfg.HistoryLimit)
	if err != nil {
		return sight{}, err
	}
	return b.see(ctx, log, t, history)
}

// see is look once the history is read.
func (b *Bot) see(ctx context.Context, log *slog.Logger, t talk, history []ryo.Message) (sight, error) {
	ctx, cancel := t.bounded(ctx)
	defer cancel()
	history = t.withoutReplaced(history) // regenerate.go
	s := sight{history: history}
	i := slices.IndexFunc(history, func(m ryo.Message) bool { return m.ID == t.message })
	var err error
	if s.refusal, err = b.files(ctx, log, t.words, t.chat, history, i); err != nil || s.refusal != "" { // documents: document.go
		return s, err
	}
	asked := i >= 0 && len(history[i].Photos()) > 0
	if !slices.ContainsFunc(history, func(m ryo.Message) bool { return len(m.Photos()) > 0 }) {
		return s, nil
	}
	if s.model = b.chatSees(ctx, log, t); s.model == "" && b.cfg.Vision != nil { // a chat's own model that reads pictures sees its photos
		s.model, err = b.cfg.Vision.VisionModel(ctx)
		if err != nil {
			log.WarnContext(ctx, "cannot tell whether the model reads pictures", "photo_answered", asked, "err", err)
		}
		if err != nil && asked {
			s.refusal = t.words.Sprintf(noSight) // not noVision: nothing is missing from the settings
			return s, nil
		}
	}
	if s.model == "" {
		if asked {
			log.InfoContext(ctx, "a photo came, but no model reads pictures (RYO_VISION_MODEL)")
			s.refusal = t.words.Sprintf(noVision)
		}
		return s, nil
	}
	ours := answersOf(history, i)
	itsOwn := func(j int) bool { // the answered message's own photos
		return j == i || i >= 0 && history[i].MediaGroup != "" && history[j].MediaGroup == history[i].MediaGroup
	}
	tried := 0 // a photo that cannot be fetched takes its place as one shown would: stale ones cost no more
	for j := len(history) - 1; j >= 0; j-- {
		m := &history[j]
		for _, p := range m.Photos() {
			if !ours(j) && tried >= imagesShown || tried >= imagesShown+maxAlbum {
				continue
			}
			tried++
			data, err := b.fetchPhoto(ctx, p)
			if err != nil && (ctx.Err() != nil || ryo.IsUnavailable(err, ryo.Telegram)) {
				return s, err // shutdown or an outage: the turn runs again later, and the photo is fetched then
			}
			if err != nil {
				log.WarnContext(ctx, "cannot fetch a photo to show the model", "message_id", m.TelegramID, "file_size", p.Size,
					"width", p.Width, "height", p.Height, "err", err)
				if itsOwn(j) {
					s.refusal = photoRefused(t.words, err) // the answered message's own: an earlier one of the burst may have been refused before
					return s, nil
				}
				continue
			}
			if !itsOwn(j) && len(m.Images) == 0 {
				s.older = append(s.older, j)
			}
			m.Images = append(m.Images, data)
		}
	}
	return s, nil
}

// answersOf reports whether history[j] is part of what the turn answering
// history[i] answers: that message, its sender's messages since the bot
// last spoke (a burst is answered together with its last message), and
// every part of an album among them.
func answersOf(history []ryo.Message, i int) func(j int) bool {
	if i < 0 {
		return func(int) bool { return false }
	}
	from := history[i].Sender
	same := func(m ryo.Message) bool { return m.Sender != nil && from != nil && m.Sender.ID == from.ID }
	first := i
	for first > 0 && history[first-1].Sender != nil && same(history[first-1]) {
		first--
	}
	albums := map[string]bool{}
	for _, m := range history[first : i+1] {
		if m.MediaGroup != "" {
			albums[m.MediaGroup] = true
		}
	}
	return func(j int) bool {
		return first <= j && j <= i || albums[history[j].MediaGroup] && same(history[j])
	}
}

// fetchPhoto downloads a photo within its bounds, and checks from its
// header alone that its pixels are within them too. Nothing is written to
// disk: the bytes live as long as the turn.
func (b *Bot) fetchPhoto(ctx context.Context, p ryo.Media) ([]byte, error) {
	if p.Size > maxPhotoBytes {
		return nil, delivery.ErrFileTooBig
	}
	data, err := b.tg.Download(ctx, p.FileID, maxPhotoBytes)
	if err != nil {
		return nil, err
	}
	return data, checkPicture(data)
}

// checkPicture reads a picture's header: a format the model server reads,
// and no more pixels than a photo has.
func checkPicture(data []byte) error {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	switch {
	case err != nil:
		return fmt.Errorf("%w: %v", errNoPicture, err)
	case cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxPhotoPixels:
		return fmt.Errorf("%w: a %s of %d×%d", errPixelBomb, format, cfg.Width, cfg.Height)
	case format == "webp":
		return webpFrames(data, cfg.Width, cfg.Height)
	}
	return nil
}

// photoRefused is what the person is told when their photo could not be
// fetched or read.
func photoRefused(p lang.Printer, err error) string {
	switch {
	case errors.Is(err, delivery.ErrFileTooBig), errors.Is(err, errPixelBomb):
		return p.Sprintf(photoBig)
	case errors.Is(err, errNoPicture):
		return p.Sprintf(photoOdd)
	}
	return p.Sprintf(photoBad)
}
