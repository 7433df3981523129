package telegramtest

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // the formats Telegram reads a photo in
	_ "image/jpeg"
	_ "image/png"
	"strconv"

	_ "golang.org/x/image/webp"
)

// Telegram's limits on a photo a bot sends: 10 MB, width and height
// together at most 10,000 pixels, one side at most 20 times the other.
const (
	maxPhotoBytes = 10 << 20
	maxPhotoSides = 10000
	maxPhotoRatio = 20
)

// Photo is a picture the bot sent with sendPhoto: the bytes as they were
// uploaded, so that a test can decode them, and the size Telegram read.
type Photo struct {
	FileName      string
	MimeType      string
	Data          []byte
	Width, Height int
	Format        string // as image.DecodeConfig names it: png, jpeg, gif, webp
}

type wirePhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int    `json:"file_size"`
}

// sendPhoto stores an uploaded picture as a bot message, its caption as
// the message's text, refusing what Telegram refuses: no photo, a file
// that is no picture, one past 10 MB or of sizes Telegram does not take,
// and a caption past 1,024 characters.
func (s *Server) sendPhoto(r *request) (any, error) {
	c, err := s.chatParam(r)
	if err != nil {
		return nil, err
	}
	f, err := r.upload("photo")
	if err != nil {
		return nil, err
	}
	switch {
	case len(f.data) > maxPhotoBytes:
		return nil, badRequest("PHOTO_SAVE_FILE_INVALID")
	}
	photo, err := readPhoto(f)
	if err != nil {
		return nil, err
	}
	shown, err := formatCaption(r.str("caption"), r.str("parse_mode"), r.str("caption_entities"))
	if err != nil {
		return nil, err
	}
	markup, err := readMarkup(r.str("reply_markup"))
	if err != nil {
		return nil, err
	}
	thread, replyTo, err := botPlace(c, r)
	if err != nil {
		return nil, err
	}
	m := &stored{byBot: true, shown: shown, Message: Message{
		ThreadID: thread, From: s.opts.Bot, Text: r.str("caption"), ParseMode: r.str("parse_mode"),
		ReplyTo: replyTo, ReplyMarkup: markup, Date: s.opts.Now(), Photo: photo,
	}}
	c.add(m)
	return s.publish(c, m), nil
}

// readPhoto reads the picture's size, as Telegram does before it takes it.
func readPhoto(f upload) (*Photo, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(f.data))
	if err != nil {
		return nil, badRequest("IMAGE_PROCESS_FAILED")
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 || w+h > maxPhotoSides || w > h*maxPhotoRatio || h > w*maxPhotoRatio {
		return nil, badRequest("PHOTO_INVALID_DIMENSIONS")
	}
	return &Photo{FileName: f.name, MimeType: f.mimeType, Data: f.data, Width: w, Height: h, Format: format}, nil
}

// photoSizes are the sizes Telegram keeps of a photo, smallest first: a
// thumbnail and smaller copies at 90, 320, 800 and 1280 pixels on the
// longer side, and the photo itself, at most 2560.
func photoSizes(chat int64, id int, p *Photo) []wirePhotoSize {
	var out []wirePhotoSize
	add := func(side int) {
		long := max(p.Width, p.Height)
		w, h := p.Width*side/long, p.Height*side/long
		size := len(p.Data) * w * h / (p.Width * p.Height)
		n := len(out)
		out = append(out, wirePhotoSize{FileID: fmt.Sprintf("photo-%d-%d-%d", chat, id, n),
			FileUniqueID: "p" + strconv.Itoa(id) + "-" + strconv.Itoa(n), Width: max(w, 1), Height: max(h, 1), FileSize: max(size, 1)})
	}
	for _, side := range []int{90, 320, 800, 1280} {
		if max(p.Width, p.Height) > side {
			add(side)
		}
	}
	add(min(max(p.Width, p.Height), 2560))
	return out
}
