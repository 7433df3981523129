package delivery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A file someone sent arrives byte for byte, whatever its name.
func TestDownloadASentFile(t *testing.T) {
	tg, srv := running(t)
	alice := telegramtest.NewUser("Alice", "alice")
	chat := telegramtest.PrivateChat(alice)
	data := []byte("# Handbook\n\nRefunds take 5 days. Ünïcödé 🚀\x00\xff")
	m := srv.SendDocument(chat, alice, telegramtest.Document{FileName: "../../etc/hand book.md", MimeType: "text/markdown", Data: data}, "/knowledge add")
	id := fileID(t, m)
	got, err := tg.Download(t.Context(), id, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("downloaded %q; want %q", got, data)
	}
	if d := srv.Downloads(); len(d) != 1 || !strings.HasPrefix(d[0], "documents/file_") || !strings.HasSuffix(d[0], ".md") {
		t.Fatalf("downloads = %q", d)
	}
}

// A file over the limit is refused from its size alone, before a byte of it
// is downloaded; one over Telegram's 20 MB is refused by Telegram.
func TestDownloadRefusesTooBig(t *testing.T) {
	tg, srv := running(t)
	alice := telegramtest.NewUser("Alice", "alice")
	chat := telegramtest.PrivateChat(alice)
	small := srv.SendDocument(chat, alice, telegramtest.Document{FileName: "a.txt", Data: bytes.Repeat([]byte("a"), 2048)}, "")
	if _, err := tg.Download(t.Context(), fileID(t, small), 1024); !errors.Is(err, delivery.ErrFileTooBig) {
		t.Fatalf("2 KB file with a 1 KB limit: err = %v; want ErrFileTooBig", err)
	}
	huge := srv.SendDocument(chat, alice, telegramtest.Document{FileName: "huge.pdf", Data: make([]byte, delivery.MaxDownloadBytes+1)}, "")
	if _, err := tg.Download(t.Context(), fileID(t, huge), 0); !errors.Is(err, delivery.ErrFileTooBig) {
		t.Fatalf("file past 20 MB: err = %v; want ErrFileTooBig", err)
	}
	if d := srv.Downloads(); len(d) != 0 {
		t.Fatalf("downloads = %q; want none", d)
	}
}

// A file id Telegram does not know is an error, and no error holds the
// token, though the download's address does.
func TestDownloadErrorsHideTheToken(t *testing.T) {
	tg, _ := running(t)
	if _, err := tg.Download(t.Context(), "BQACAgIAAxkBAAIBm2Zz", 0); err == nil || !strings.Contains(err.Error(), "invalid file_id") {
		t.Fatalf("unknown file: err = %v", err)
	}

	// A Bot API whose file server drops the connection mid-download.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/getFile") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true,"result":{"file_id":"x","file_unique_id":"u","file_size":100,"file_path":"documents/file_1.pdf"}}`))
			return
		}
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte("%PDF-1.7"))
		panic(http.ErrAbortHandler)
	}))
	defer api.Close()
	broken, err := delivery.New(delivery.Options{Token: ryo.Secret(token), APIURL: api.URL, CallTimeout: 10 * time.Second}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { broken.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	_, err = broken.Download(ctx, "x", 0)
	if err == nil {
		t.Fatal("a cut download succeeded")
	}
	if secret := token[strings.IndexByte(token, ':')+1:]; strings.Contains(err.Error(), secret) {
		t.Fatalf("error shows the token: %v", err)
	}
}

func fileID(t *testing.T, m telegramtest.Message) string {
	t.Helper()
	var raw struct {
		Document struct {
			FileID string `json:"file_id"`
		} `json:"document"`
	}
	if err := json.Unmarshal(m.Raw, &raw); err != nil || raw.Document.FileID == "" {
		t.Fatalf("message %s has no document: %v", m.Raw, err)
	}
	return raw.Document.FileID
}

// A file whose size Telegram understates, or leaves out, is still read no
// further than the limit: a recording said to be 1 KB that streams 25 MB
// is refused as too big.
func TestDownloadBoundedWhenTheSizeLies(t *testing.T) {
	for _, size := range []string{`"file_size":1024,`, ``} {
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/getFile") {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"ok":true,"result":{"file_id":"x","file_unique_id":"u",` + size + `"file_path":"voice/file_1.oga"}}`))
				return
			}
			chunk := bytes.Repeat([]byte("OggS"), 1<<18) // 1 MB, without a Content-Length
			for range 25 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		tg, err := delivery.New(delivery.Options{Token: ryo.Secret(token), APIURL: api.URL, CallTimeout: 10 * time.Second}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { tg.Run(ctx); close(done) }()
		data, err := tg.Download(ctx, "x", 20<<20)
		cancel()
		<-done
		api.Close()
		if !errors.Is(err, delivery.ErrFileTooBig) || len(data) != 0 {
			t.Fatalf("getFile with %q: %d bytes, err = %v; want ErrFileTooBig", size, len(data), err)
		}
	}
}
