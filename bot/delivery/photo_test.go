package delivery_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/telegramtest"
)

const token = "7234567890:AAH-delivery-test"

// running is a Telegram client of a fake Telegram, sending until the test
// ends.
func running(t *testing.T) (*delivery.Telegram, *telegramtest.Server) {
	t.Helper()
	srv := telegramtest.NewServer(telegramtest.Options{Token: token})
	t.Cleanup(srv.Close)
	tg, err := delivery.New(delivery.Options{Token: ryo.Secret(token), APIURL: srv.URL(), CallTimeout: 10 * time.Second},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tg.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return tg, srv
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngHeader is only the header of a PNG w×h pixels: enough for Telegram
// to size it.
func pngHeader(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk := append([]byte("IHDR"), append(ihdr, 8, 6, 0, 0, 0)...)
	out := append([]byte("\x89PNG\r\n\x1a\n"), binary.BigEndian.AppendUint32(nil, 13)...)
	return binary.BigEndian.AppendUint32(append(out, chunk...), crc32.ChecksumIEEE(chunk))
}

// A picture arrives as a photo, as a reply, with its caption cut to what
// Telegram takes.
func TestSendPhoto(t *testing.T) {
	tg, srv := running(t)
	alice := telegramtest.NewUser("Alice", "alice")
	chat := telegramtest.PrivateChat(alice)
	q := srv.SendText(chat, alice, "chart it")
	pic := pngOf(t, 120, 80)
	caption := strings.Repeat("Weekly spending ", 100)
	id, err := tg.SendPhoto(t.Context(), ryo.Place{ChatID: chat.ID}, q.ID, "chart.png", pic, caption)
	if err != nil {
		t.Fatal(err)
	}
	m := srv.BotMessages(chat.ID)[0]
	if m.ID != id || m.Photo == nil || !bytes.Equal(m.Photo.Data, pic) || m.ReplyTo != q.ID {
		t.Fatalf("message = %+v", m)
	}
	if n := len([]rune(m.Text)); n != 1024 || !strings.HasSuffix(m.Text, "…") {
		t.Fatalf("caption of %d characters: %q; want it cut to 1,024", n, m.Text)
	}
}

// A picture Telegram will not take as a photo still arrives, as a file.
func TestRefusedPhotoArrivesAsAFile(t *testing.T) {
	tg, srv := running(t)
	alice := telegramtest.NewUser("Alice", "alice")
	chat := telegramtest.PrivateChat(alice)
	srv.SendText(chat, alice, "draw a long one")
	thin := pngHeader(4000, 100)
	id, err := tg.SendPhoto(t.Context(), ryo.Place{ChatID: chat.ID}, 0, "thin.png", thin, "A long one")
	if err != nil {
		t.Fatal(err)
	}
	m := srv.BotMessages(chat.ID)[0]
	if m.ID != id || m.Photo != nil || m.Document == nil || !bytes.Equal(m.Document.Data, thin) || m.Text != "A long one" {
		t.Fatalf("message = %+v; want the picture as a file", m)
	}
	if calls := srv.Calls("sendPhoto"); len(calls) != 1 || calls[0].Err == nil {
		t.Fatalf("sendPhoto calls = %+v; want the one refused", calls)
	}
}
