package bot

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/lang"
)

// pngClaiming is a small PNG whose header claims width×height pixels.
func pngClaiming(t *testing.T, width, height uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	ihdr := data[8+4 : 8+4+4+13] // the chunk's type and data, after the signature and length
	binary.BigEndian.PutUint32(ihdr[4:], width)
	binary.BigEndian.PutUint32(ihdr[8:], height)
	binary.BigEndian.PutUint32(data[8+4+4+13:], crc32.ChecksumIEEE(ihdr))
	return data
}

// webpClaiming is a WebP whose extended header claims a canvas of
// canvasW×canvasH pixels around a lossy frame whose own header claims
// frameW×frameH: a decoder allocates for the frame.
func webpClaiming(canvasW, canvasH, frameW, frameH uint32) []byte {
	le24 := func(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16)} }
	chunk := func(fourCC string, data []byte) []byte {
		c := binary.LittleEndian.AppendUint32([]byte(fourCC), uint32(len(data)))
		return append(c, data...)
	}
	vp8x := append(append([]byte{0, 0, 0, 0}, le24(canvasW-1)...), le24(canvasH-1)...)
	frame := []byte{0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a}
	frame = binary.LittleEndian.AppendUint16(frame, uint16(frameW))
	frame = binary.LittleEndian.AppendUint16(frame, uint16(frameH))
	body := append([]byte("WEBP"), chunk("VP8X", vp8x)...)
	body = append(body, chunk("VP8 ", frame)...)
	return append(binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(len(body))), body...)
}

// A picture is checked by its header alone: a photo passes; one that
// claims more than 40 megapixels, and a file that is no picture, do not,
// and each gets the sentence that says why.
func TestCheckPicture(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want error
		says string
	}{
		{name: "photo", data: imagetest.Picture(1200, 1600, "jpeg")},
		{name: "just under the bound", data: pngClaiming(t, 8000, 5000)},
		{name: "pixel bomb", data: pngClaiming(t, 30000, 30000), want: errPixelBomb, says: photoBig},
		{name: "one pixel past", data: pngClaiming(t, 8000, 5001), want: errPixelBomb, says: photoBig},
		{name: "webp whose frame is its canvas", data: webpClaiming(640, 480, 640, 480)},
		{name: "webp frame past a small canvas", data: webpClaiming(1, 1, 16383, 16383), want: errPixelBomb, says: photoBig},
		{name: "not a picture", data: []byte("%PDF-1.7 a receipt"), want: errNoPicture, says: photoOdd},
		{name: "cut short", data: imagetest.Picture(640, 480, "jpeg")[:20], want: errNoPicture, says: photoOdd},
	}
	for _, c := range cases {
		err := checkPicture(c.data)
		if !errors.Is(err, c.want) || err == nil && c.want != nil {
			t.Errorf("%s: checkPicture = %v; want %v", c.name, err, c.want)
		}
		if err != nil && photoRefused(lang.Printer{}, err) != c.says {
			t.Errorf("%s: told %q; want %q", c.name, photoRefused(lang.Printer{}, err), c.says)
		}
	}
	if photoRefused(lang.Printer{}, delivery.ErrFileTooBig) != photoBig || photoRefused(lang.Printer{}, errors.New("getFile: 502")) != photoBad {
		t.Error("a download failure is not told as it should be")
	}
}

// Of a photo's sizes the largest within 10 MB and 40 megapixels is kept;
// when none is, the largest, whose fetching is then refused in words.
func TestMediaOfPicksTheLargestSizeWithinBounds(t *testing.T) {
	size := func(id string, w, h, bytes int) models.PhotoSize {
		return models.PhotoSize{FileID: id, Width: w, Height: h, FileSize: bytes}
	}
	cases := []struct {
		name  string
		sizes []models.PhotoSize
		want  string
	}{
		{name: "largest fits", sizes: []models.PhotoSize{size("s", 90, 67, 1393), size("m", 800, 600, 60000), size("x", 1280, 960, 84200)}, want: "x"},
		{name: "largest too many bytes", sizes: []models.PhotoSize{size("s", 90, 67, 1393), size("m", 800, 600, 9<<20), size("x", 2560, 1920, 11<<20)}, want: "m"},
		{name: "largest too many pixels", sizes: []models.PhotoSize{size("m", 1280, 960, 1<<20), size("x", 9000, 9000, 5<<20)}, want: "m"},
		{name: "none fits", sizes: []models.PhotoSize{size("m", 800, 600, 11<<20), size("x", 1280, 960, 15<<20)}, want: "x"},
		{name: "size unknown", sizes: []models.PhotoSize{size("s", 90, 67, 0), size("x", 1280, 960, 0)}, want: "x"},
	}
	for _, c := range cases {
		got := mediaOf(&models.Message{Photo: c.sizes})
		if len(got) != 1 || got[0].FileID != c.want {
			t.Errorf("%s: mediaOf = %+v; want %s", c.name, got, c.want)
		}
	}
	if got := mediaOf(&models.Message{Text: "hi"}); got != nil {
		t.Errorf("a text message has media %+v", got)
	}
}

// A photo of an album waits for the album's other parts for the window
// after it arrived; a photo on its own, and a text, never wait.
func TestAlbumWait(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	photo := []models.PhotoSize{{FileID: "p", Width: 800, Height: 600}}
	part := &models.Message{Photo: photo, MediaGroupID: "1375"}
	cases := []struct {
		name string
		m    *models.Message
		at   time.Duration
		want time.Duration
	}{
		{name: "part, just arrived", m: part, at: 0, want: albumWindow},
		{name: "part, half way", m: part, at: albumWindow / 2, want: albumWindow / 2},
		{name: "part, window over", m: part, at: albumWindow, want: 0},
		{name: "part, long after", m: part, at: time.Hour, want: 0},
		{name: "photo on its own", m: &models.Message{Photo: photo}, at: 0, want: 0},
		{name: "text", m: &models.Message{Text: "hi", MediaGroupID: "1375"}, at: 0, want: 0},
	}
	for _, c := range cases {
		if got := albumWait(c.m, start, start.Add(c.at)); got != c.want {
			t.Errorf("%s: albumWait = %v; want %v", c.name, got, c.want)
		}
	}
	if got := albumWait(part, time.Time{}, start); got != 0 {
		t.Errorf("a part with no arrival time waits %v", got)
	}
}

// FuzzCheckPicture: whatever bytes come as a photo, reading its header
// and walking a WebP's chunks never panics.
func FuzzCheckPicture(f *testing.F) {
	f.Add(webpClaiming(640, 480, 640, 480))
	f.Add(webpClaiming(1, 1, 16383, 16383))
	f.Add(imagetest.Picture(32, 24, "png"))
	f.Add(imagetest.Picture(32, 24, "jpeg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = checkPicture(data)
	})
}
