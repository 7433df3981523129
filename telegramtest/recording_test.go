package telegramtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/telegramtest"
)

// A voice note, an audio file and a video note reach the bot in Telegram's
// shapes — voice {file_id, file_unique_id, duration, mime_type, file_size},
// audio with its title, performer and file name, video_note with its
// length and no mime type — and download from Telegram's folders for them.
func TestSendRecordingCanBeDownloaded(t *testing.T) {
	tests := []struct {
		r       telegramtest.Recording
		caption string
		field   string
		want    map[string]any
		folder  string
	}{
		{telegramtest.Recording{Kind: telegramtest.KindVoice, Data: []byte("OggS voice"), Duration: 4}, "@ryo_bot listen",
			"voice", map[string]any{"duration": 4.0, "mime_type": "audio/ogg", "file_size": 10.0}, "voice/"},
		{telegramtest.Recording{Kind: telegramtest.KindAudio, Data: []byte("ID3 audio!!"), Duration: 187, FileName: "week 3 🎧.mp3", Title: "Week 3", Performer: "Choir"}, "",
			"audio", map[string]any{"duration": 187.0, "mime_type": "audio/mpeg", "file_name": "week 3 🎧.mp3", "title": "Week 3", "performer": "Choir", "file_size": 11.0}, "music/"},
		{telegramtest.Recording{Kind: telegramtest.KindVideoNote, Data: []byte("ftypisom"), Duration: 9}, "",
			"video_note", map[string]any{"duration": 9.0, "length": 384.0, "file_size": 8.0}, "video_notes/"},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			s := newServer(t)
			ctx := timeout(t)
			m := s.SendRecording(groupChat(), alice(), tt.r, tt.caption)
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(m.Raw, &raw); err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := json.Unmarshal(raw[tt.field], &obj); err != nil {
				t.Fatalf("message = %s; want a %s object", m.Raw, tt.field)
			}
			for k, v := range tt.want {
				if obj[k] != v {
					t.Errorf("%s.%s = %v; want %v", tt.field, k, obj[k], v)
				}
			}
			if _, ok := obj["mime_type"]; tt.field == "video_note" && ok {
				t.Errorf("a video note has a mime_type: %s", raw[tt.field])
			}
			if _, ok := raw["text"]; ok || (tt.caption != "") != (raw["caption"] != nil) {
				t.Errorf("message = %s; want the caption as caption, and no text", m.Raw)
			}
			r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": obj["file_id"]})
			var f struct {
				FilePath string `json:"file_path"`
			}
			if !r.OK || json.Unmarshal(r.Result, &f) != nil || !strings.HasPrefix(f.FilePath, tt.folder) {
				t.Fatalf("getFile = %+v %s; want a path in %s", r, r.Result, tt.folder)
			}
			if status, body := get(t, s.URL()+"/file/bot"+testToken+"/"+f.FilePath); status != http.StatusOK || body != string(tt.r.Data) {
				t.Fatalf("download = %d, %d bytes", status, len(body))
			}
		})
	}
}

// A video note carries no caption, and Telegram sends no empty file: the
// fake refuses such a test.
func TestSendRecordingRefusesMistakes(t *testing.T) {
	s := newServer(t)
	for name, send := range map[string]func(){
		"caption on a video note": func() {
			s.SendRecording(aliceChat(), alice(), telegramtest.Recording{Kind: telegramtest.KindVideoNote, Data: []byte("x")}, "hi")
		},
		"empty": func() {
			s.SendRecording(aliceChat(), alice(), telegramtest.Recording{Kind: telegramtest.KindVoice}, "")
		},
		"unknown kind": func() {
			s.SendRecording(aliceChat(), alice(), telegramtest.Recording{Kind: "video", Data: []byte("x")}, "")
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			send()
		}()
	}
}
