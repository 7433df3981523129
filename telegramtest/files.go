package telegramtest

import (
	"net/http"
	"path"
	"strconv"
	"strings"
)

// maxDownloadBytes is the largest file Telegram lets a bot download with
// getFile: a bigger one is refused as "file is too big".
const maxDownloadBytes = 20 << 20

// servedFile is a file a bot may ask for with getFile and then download.
type servedFile struct {
	id, unique string
	name       string // the name it was sent with
	data       []byte
	path       string // set by the first getFile, as Telegram does
}

// SendDocument has user from send a file to chat, with caption as its
// caption (it may be empty), as a Telegram client would: the message
// carries a document object whose file_id getFile knows, and its caption's
// bot commands and mentions are detected as caption_entities. Options are
// SendText's. It panics on an empty file or a topic the chat lacks, since
// those are mistakes in the test.
func (s *Server) SendDocument(chat Chat, from User, d Document, caption string, opts ...SendOption) Message {
	if len(d.Data) == 0 {
		panic("telegramtest: SendDocument: Telegram sends no empty file")
	}
	doc := d
	return s.sendAs("SendDocument", chat, Message{From: from, Text: caption, Document: &doc}, opts)
}

// keepFiles makes the files of a message the bot sees downloadable.
func (s *Server) keepFiles(c *chatLog, m *stored) {
	if m.Photo != nil && !m.byBot {
		s.keepPhoto(c, m)
	}
	if m.Recording != nil {
		s.keepRecording(c, m)
	}
	if m.Document == nil {
		return
	}
	w := documentJSON(c.chat.ID, m.ID, m.Document)
	if s.files[w.FileID] == nil {
		s.files[w.FileID] = &servedFile{id: w.FileID, unique: w.FileUniqueID, name: m.Document.FileName, data: m.Document.Data}
	}
}

type wireFile struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int    `json:"file_size,omitempty"`
	FilePath     string `json:"file_path,omitempty"`
}

// getFile answers as Telegram does: the file's size and a path to
// download it from, or "file is too big" past 20 MB.
func (s *Server) getFile(r *request) (any, error) {
	f := s.files[r.str("file_id")]
	switch {
	case f == nil:
		return nil, badRequest("invalid file_id")
	case len(f.data) > maxDownloadBytes:
		return nil, badRequest("file is too big")
	}
	if f.path == "" {
		s.fileSeq++
		f.path = folder(f) + "/file_" + strconv.Itoa(s.fileSeq) + extension(f)
	}
	return wireFile{FileID: f.id, FileUniqueID: f.unique, FileSize: len(f.data), FilePath: f.path}, nil
}

// folder is where Telegram keeps a file: photos apart from documents.
func folder(f *servedFile) string {
	if strings.HasPrefix(f.id, "photo-") {
		return "photos"
	}
	for prefix, dir := range map[string]string{KindVoice + "-": "voice", KindAudio + "-": "music", KindVideoNote + "-": "video_notes"} {
		if strings.HasPrefix(f.id, prefix) {
			return dir
		}
	}
	return "documents"
}

// extension is the file's extension as Telegram keeps it in a path: that
// of the name it was sent with, when it has a short plain one.
func extension(f *servedFile) string {
	ext := strings.ToLower(path.Ext(f.name))
	if len(ext) < 2 || len(ext) > 6 || strings.Trim(ext[1:], "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return ""
	}
	return ext
}

// serveFile answers GET /file/bot<token>/<file_path> with the file's
// bytes. Telegram answers an unknown path or token with 404.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/file/bot")
	token, filePath, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	var data []byte
	found := false
	if token == s.opts.Token && r.Method == http.MethodGet {
		for _, f := range s.files {
			if f.path != "" && f.path == filePath {
				data, found = f.data, true
				break
			}
		}
	}
	if found {
		s.downloads = append(s.downloads, filePath)
		s.notify()
	}
	down := s.down
	s.mu.Unlock()
	switch {
	case down:
		writeBadGateway(w)
	case !found:
		writeError(w, notFound())
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data)
	}
}

// Downloads returns the paths of the files the bot downloaded, in order.
func (s *Server) Downloads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.downloads...)
}
