package telegramtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/telegramtest"
)

// A document someone sends reaches the bot as Telegram shows it: the file's
// name, type and size, the caption with its command as a caption entity;
// getFile gives its path, and the path its bytes, with the token only.
func TestSendDocumentCanBeDownloaded(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	group := groupChat()
	data := []byte("# Refunds\n\nFive days.")
	m := s.SendDocument(group, alice(), telegramtest.Document{FileName: "Hand Book.MD", MimeType: "text/markdown", Data: data}, "/knowledge add")
	var raw struct {
		Text            *string `json:"text"`
		Caption         string  `json:"caption"`
		CaptionEntities []struct {
			Type string `json:"type"`
		} `json:"caption_entities"`
		Document struct {
			FileID   string `json:"file_id"`
			FileName string `json:"file_name"`
			MimeType string `json:"mime_type"`
			FileSize int    `json:"file_size"`
		} `json:"document"`
	}
	if err := json.Unmarshal(m.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Text != nil || raw.Caption != "/knowledge add" || len(raw.CaptionEntities) != 1 || raw.CaptionEntities[0].Type != "bot_command" ||
		raw.Document.FileName != "Hand Book.MD" || raw.Document.MimeType != "text/markdown" || raw.Document.FileSize != len(data) {
		t.Fatalf("message = %s", m.Raw)
	}
	if got := updates(t, postJSON(ctx, t, s, "getUpdates", map[string]any{"timeout": 0})); len(got) != 1 {
		t.Fatalf("updates = %d; want the document's", len(got))
	}

	r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": raw.Document.FileID})
	var f struct {
		FileSize int    `json:"file_size"`
		FilePath string `json:"file_path"`
	}
	if !r.OK || json.Unmarshal(r.Result, &f) != nil || f.FileSize != len(data) || !strings.HasSuffix(f.FilePath, ".md") {
		t.Fatalf("getFile = %+v %s", r, r.Result)
	}
	if status, body := get(t, s.URL()+"/file/bot"+testToken+"/"+f.FilePath); status != http.StatusOK || body != string(data) {
		t.Fatalf("download = %d %q", status, body)
	}
	if status, _ := get(t, s.URL()+"/file/bot1:wrong/"+f.FilePath); status != http.StatusNotFound {
		t.Fatalf("download with a wrong token = %d; want 404", status)
	}
	if status, _ := get(t, s.URL()+"/file/bot"+testToken+"/documents/file_99.md"); status != http.StatusNotFound {
		t.Fatalf("download of an unknown path = %d; want 404", status)
	}
	if d := s.Downloads(); len(d) != 1 || d[0] != f.FilePath {
		t.Fatalf("downloads = %q", d)
	}
}

// getFile refuses what Telegram refuses: an unknown id, a missing one, a
// file past 20 MB.
func TestGetFileRefuses(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	if r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": "BQACAgIAAxkBAAIBm2Zz"}); r.OK || r.Description != "Bad Request: invalid file_id" {
		t.Fatalf("unknown id: %+v", r)
	}
	if r := postJSON(ctx, t, s, "getFile", map[string]any{}); r.OK || r.ErrorCode != http.StatusBadRequest {
		t.Fatalf("no id: %+v", r)
	}
	m := s.SendDocument(groupChat(), alice(), telegramtest.Document{FileName: "big.pdf", Data: make([]byte, 20<<20+1)}, "")
	var raw struct {
		Document struct {
			FileID string `json:"file_id"`
		} `json:"document"`
	}
	_ = json.Unmarshal(m.Raw, &raw)
	if r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": raw.Document.FileID}); r.OK || r.Description != "Bad Request: file is too big" {
		t.Fatalf("file past 20 MB: %+v", r)
	}
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// A download is a change a Wait sees: a test waiting for the bot to fetch
// a file is woken once it has, though no call or update comes after it.
func TestWaitWakesOnADownload(t *testing.T) {
	s := newServer(t)
	ctx := timeout(t)
	m := s.SendDocument(aliceChat(), alice(), telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain", Data: []byte("Buy milk.")}, "")
	var raw struct {
		Document struct {
			FileID string `json:"file_id"`
		} `json:"document"`
	}
	if err := json.Unmarshal(m.Raw, &raw); err != nil {
		t.Fatal(err)
	}
	var f struct {
		FilePath string `json:"file_path"`
	}
	if r := postJSON(ctx, t, s, "getFile", map[string]any{"file_id": raw.Document.FileID}); !r.OK || json.Unmarshal(r.Result, &f) != nil {
		t.Fatalf("getFile = %+v %s", r, r.Result)
	}
	// The download happens after cond saw none and before Wait sleeps:
	// only the download itself can wake it.
	fetched := false
	err := s.Wait(ctx, func() bool {
		n := len(s.Downloads())
		if n == 0 && !fetched {
			fetched = true
			if status, _ := get(t, s.URL()+"/file/bot"+testToken+"/"+f.FilePath); status != http.StatusOK {
				t.Errorf("download = %d", status)
			}
		}
		return n == 1
	})
	if err != nil {
		t.Fatalf("the download did not wake the wait: %v", err)
	}
}
