package delivery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// MaxDownloadBytes is the largest file Telegram lets a bot download.
const MaxDownloadBytes = 20 << 20

// ErrFileTooBig is a file over the limit of a download, or over Telegram's.
var ErrFileTooBig = errors.New("the file is too big")

// Download fetches the bytes of the file Telegram knows as fileID, such as
// a document someone sent, refusing one over limit bytes (Telegram's 20 MB
// when limit is 0 or more) with ErrFileTooBig before it is downloaded when
// Telegram tells its size, and as soon as it passes the limit when not.
// The download's deadline allows for the slowest line an upload's does.
// Errors never carry the token, which the download's address holds.
func (t *Telegram) Download(ctx context.Context, fileID string, limit int64) ([]byte, error) {
	if limit <= 0 || limit > MaxDownloadBytes {
		limit = MaxDownloadBytes
	}
	var f *models.File
	err := t.global(ctx, "getFile", func(ctx context.Context) error {
		var err error
		f, err = t.api.GetFile(ctx, &tg.GetFileParams{FileID: fileID})
		return err
	})
	switch {
	case isBadRequest(err, "file is too big"):
		return nil, ErrFileTooBig
	case err != nil:
		return nil, fmt.Errorf("getFile: %w", err)
	case f.FileSize > limit:
		return nil, ErrFileTooBig
	case f.FilePath == "":
		return nil, errors.New("getFile: Telegram gave no path to download the file from")
	}
	ctx, cancel := context.WithTimeout(ctx, t.e.timeout+uploadTime(int(limit)))
	defer cancel()
	data, err := t.fetch(ctx, t.api.FileDownloadLink(f), limit)
	return data, Scrub(err, t.e.token)
}

func (t *Telegram) fetch(ctx context.Context, link string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	resp, err := t.files.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download: Telegram's file server answered %s", resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, ErrFileTooBig
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("download: %w", err)
	case int64(len(data)) > limit:
		return nil, ErrFileTooBig
	}
	return data, nil
}
