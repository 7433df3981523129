package telegramtest_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

// pngOf is a PNG picture w×h pixels.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(w/2, h/2, color.RGBA{R: 0x4e, G: 0x79, B: 0xa7, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeader is the start of a PNG picture w×h pixels: its signature and
// header, all Telegram reads to size it, and all a test needs to show a
// size it refuses without drawing millions of pixels.
func pngHeader(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8 bits, RGBA, deflate, no filter, no interlace
	chunk := append([]byte("IHDR"), ihdr...)
	out := append([]byte("\x89PNG\r\n\x1a\n"), binary.BigEndian.AppendUint32(nil, uint32(len(ihdr)))...)
	out = append(out, chunk...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(chunk))
}

func upload(name string, data []byte) *models.InputFileUpload {
	return &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}
}

// A photo is kept as uploaded, with its caption formatted as Telegram
// would, as a reply in its topic; the bot gets back Telegram's sizes.
func TestSendPhotoKeepsThePicture(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	forum := telegramtest.NewForum("Team")
	topic := s.CreateTopic(forum, alice(), "Money")
	q := s.SendText(forum, alice(), "chart it", telegramtest.InThread(topic.ThreadID))
	pic := pngOf(t, 1200, 800)
	m, err := b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: forum.ID, MessageThreadID: topic.ThreadID, Photo: upload("chart.png", pic),
		Caption: "<b>Weekly</b> spending", ParseMode: models.ParseModeHTML, ShowCaptionAboveMedia: true,
		ReplyParameters: &models.ReplyParameters{MessageID: q.ID, AllowSendingWithoutReply: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Photo) != 4 || m.Caption != "Weekly spending" || len(m.CaptionEntities) != 1 || m.Text != "" || m.MessageThreadID != topic.ThreadID {
		t.Fatalf("returned message = %+v", m)
	}
	if big := m.Photo[len(m.Photo)-1]; big.Width != 1200 || big.Height != 800 || big.FileSize != len(pic) || big.FileID == "" {
		t.Fatalf("largest size = %+v", big)
	}
	if small := m.Photo[0]; small.Width != 90 || small.Height != 60 {
		t.Fatalf("thumbnail = %+v", small)
	}
	got := s.BotMessages(forum.ID)[0]
	if got.Photo == nil || !bytes.Equal(got.Photo.Data, pic) || got.Photo.Format != "png" || got.Photo.FileName != "chart.png" ||
		got.ReplyTo != q.ID || got.ThreadID != topic.ThreadID || got.Text != "<b>Weekly</b> spending" {
		t.Fatalf("stored message = %+v", got)
	}
	if _, err := png.Decode(bytes.NewReader(got.Photo.Data)); err != nil {
		t.Fatalf("the kept picture does not decode: %v", err)
	}
	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: forum.ID, MessageID: m.ID, Text: "new"})
	if err == nil || !strings.Contains(err.Error(), "there is no text in the message to edit") {
		t.Fatalf("editMessageText on a photo: %v", err)
	}
}

// What Telegram refuses, the fake refuses, in Telegram's words.
func TestSendPhotoRefusesWhatTelegramRefuses(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	s.SendText(aliceChat(), alice(), "hi")
	pic := pngOf(t, 40, 30)
	tooBig := append(pngOf(t, 40, 30), make([]byte, 10<<20)...) // a valid picture, padded past 10 MB
	for _, tt := range []struct {
		name   string
		params *bot.SendPhotoParams
		want   string
	}{
		{"a null photo", &bot.SendPhotoParams{ChatID: aliceChat().ID, Caption: "x"}, "wrong remote file identifier"},
		{"a file id", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: &models.InputFileString{Data: "AgACAgIAAxkBAAIB"}}, "wrong remote file identifier"},
		{"empty", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("e.png", nil)}, "file must be non-empty"},
		{"not a picture", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("a.png", []byte("%PDF-1.7 not a picture"))}, "IMAGE_PROCESS_FAILED"},
		{"too big", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("big.png", tooBig)}, "PHOTO_SAVE_FILE_INVALID"},
		{"too long and thin", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("thin.png", pngHeader(2100, 100))}, "PHOTO_INVALID_DIMENSIONS"},
		{"too large a picture", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("wide.png", pngHeader(6000, 4001))}, "PHOTO_INVALID_DIMENSIONS"},
		{"long caption", &bot.SendPhotoParams{ChatID: aliceChat().ID, Caption: strings.Repeat("ы", 1025), Photo: upload("a.png", pic)}, "message caption is too long"},
		{"bad caption markup", &bot.SendPhotoParams{ChatID: aliceChat().ID, Caption: "<b>open", ParseMode: models.ParseModeHTML, Photo: upload("a.png", pic)}, "can't parse entities"},
		{"unknown chat", &bot.SendPhotoParams{ChatID: 7, Photo: upload("a.png", pic)}, "chat not found"},
		{"bad reply ref", &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("a.png", pic), ReplyParameters: &models.ReplyParameters{MessageID: 999}}, "message to be replied not found"},
	} {
		if _, err := b.SendPhoto(timeout(t), tt.params); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: sendPhoto = %v; want %q", tt.name, err, tt.want)
		}
	}
	if r := postForm(ctx, t, s, "sendPhoto", url.Values{"chat_id": {aliceID()}, "caption": {"x"}}); r.OK || r.Description != "Bad Request: there is no photo in the request" {
		t.Errorf("sendPhoto without a photo = %+v", r)
	}
	if _, err := b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: aliceChat().ID, Caption: strings.Repeat("ы", 1024), Photo: upload("a.png", pic)}); err != nil {
		t.Fatalf("a caption of 1,024 characters: %v", err)
	}
	if n := len(s.BotMessages(aliceChat().ID)); n != 1 {
		t.Fatalf("%d bot messages; want the one photo", n)
	}
}

// The photo's message reads as Telegram's: a photo array, the caption
// where the text would be.
func TestPhotoMessageJSON(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	if _, err := b.SendPhoto(timeout(t), &bot.SendPhotoParams{ChatID: aliceChat().ID, Photo: upload("a.png", pngOf(t, 2600, 200)), Caption: "c"}); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Text    *string            `json:"text"`
		Caption string             `json:"caption"`
		Photo   []models.PhotoSize `json:"photo"`
	}
	if err := json.Unmarshal(s.BotMessages(aliceChat().ID)[0].Raw, &raw); err != nil {
		t.Fatal(err)
	}
	sides := []int{}
	for _, p := range raw.Photo {
		sides = append(sides, p.Width)
	}
	if raw.Text != nil || raw.Caption != "c" || len(sides) != 5 || sides[4] != 2560 || sides[3] != 1280 {
		t.Fatalf("message = %+v, widths %v", raw, sides)
	}
}
