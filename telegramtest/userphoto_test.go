package telegramtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A photo someone sends reaches the bot as Telegram shows it: sizes
// smallest first, each with a file_id getFile knows and a path that
// downloads the picture; the caption with its mention; the album's id.
func TestSendPhotoCanBeDownloaded(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	pic := imagetest.Picture(2000, 1500, "jpeg")
	m := s.SendPhoto(groupChat(), alice(), pic, "@ryo_bot what is this?", telegramtest.InAlbum("1375"))
	var raw struct {
		Caption         string `json:"caption"`
		CaptionEntities []struct {
			Type string `json:"type"`
		} `json:"caption_entities"`
		MediaGroup string `json:"media_group_id"`
		Photo      []struct {
			FileID        string `json:"file_id"`
			Width, Height int
			FileSize      int `json:"file_size"`
		} `json:"photo"`
	}
	if err := json.Unmarshal(m.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	n := len(raw.Photo)
	if n < 2 || raw.Photo[n-1].Width != 2000 || raw.Photo[n-1].Height != 1500 || raw.Photo[0].Width >= raw.Photo[n-1].Width ||
		raw.MediaGroup != "1375" || len(raw.CaptionEntities) != 1 || raw.CaptionEntities[0].Type != "mention" {
		t.Fatalf("message = %s", m.Raw)
	}
	r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": raw.Photo[n-1].FileID})
	var f struct {
		FilePath string `json:"file_path"`
	}
	if !r.OK || json.Unmarshal(r.Result, &f) != nil || !strings.HasPrefix(f.FilePath, "photos/") {
		t.Fatalf("getFile = %+v %s", r, r.Result)
	}
	if status, body := get(t, s.URL()+"/file/bot"+testToken+"/"+f.FilePath); status != http.StatusOK || body != string(pic) {
		t.Fatalf("download = %d, %d bytes", status, len(body))
	}
}

// A photo past 20 MB is refused by getFile as Telegram refuses it.
func TestSendPhotoPastTelegramsLimit(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	big := append(imagetest.Picture(1280, 960, "png"), make([]byte, 20<<20)...)
	m := s.SendPhoto(groupChat(), alice(), big, "")
	var raw struct {
		Photo []struct {
			FileID string `json:"file_id"`
		} `json:"photo"`
	}
	_ = json.Unmarshal(m.Raw, &raw)
	r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": raw.Photo[len(raw.Photo)-1].FileID})
	if r.OK || r.Description != "Bad Request: file is too big" {
		t.Fatalf("getFile = %+v", r)
	}
}
