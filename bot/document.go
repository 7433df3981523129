package bot

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/knowledge"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
)

// Documents people send the bot: a file of a kind it reads (text,
// Markdown, CSV, JSON, source code, HTML, PDF) is downloaded once, its
// text extracted and split into passages that are kept with the message
// in the chat's own part of the knowledge base (memory/chatfile.go). The
// turn shows the model the newest file's text up to a budget, read back
// from there, and knowledge_search finds the rest. A picture sent as a
// file is looked at as a photo is (mediaOf). Nothing downloaded is
// written to disk.

// DocumentConfig bounds the documents people send.
type DocumentConfig struct {
	MaxBytes int64 // the largest file read; DefaultDocumentBytes when 0
	Budget   int   // the most characters of a file's text shown to the model; DefaultDocumentBudget when 0
}

// Default bounds of the documents people send.
const (
	DefaultDocumentBytes  = 10 << 20
	DefaultDocumentBudget = 10_000
)

// filesRead is the most files one turn downloads: those of a burst
// answered together, the answered message's own first.
const filesRead = 3

// fileUnread is what the model is told of a file past those one turn
// reads.
const fileUnread = "[File “%s” sent with this message was not read: I read at most %d files at once — it must be sent again to be read.]"

// extractTimeout bounds the extraction of one file's text.
const extractTimeout = time.Minute

// documentTypes names the files ryo reads for their text, for the
// sentences that say so.
const documentTypes = "text, Markdown, CSV, JSON, source code, HTML and PDF files"

// What a person is told when the document they sent cannot be read. Each
// is one sentence, and the message is kept.
const (
	docUnsupported = "I can't read “%s”: I read " + documentTypes + ", and JPEG, PNG or WebP pictures — please send it as one of those."
	docTooBig      = "“%s” is too big for me: I read files of at most %s."
	docNotText     = "“%s” is not really a %s file — its bytes are not text, so I can't read it."
	docNoText      = "I found no text in “%s” — if it is a scanned PDF, please send its text or a photo of the page instead."
	docRefused     = "Telegram would not hand me “%s” just now — please send it again."
	docFailed      = "I could not read the text of “%s” — the file may be damaged; please send it in another form."
	docSlow        = "Reading “%s” took too long, so I gave up — please send a smaller file or just the part you need."
)

// errNotText is a file whose bytes are not of the kind its name says.
var errNotText = errors.New("the file's bytes are not of its kind")

// How the bot reads a document, from what its name and type say.
const (
	readText  = "text"
	readHTML  = "html"
	readPDF   = "pdf"
	readImage = "image"
)

// textExtensions are the names of text files ryo reads as they are.
var textExtensions = strings.Fields(`.txt .text .md .markdown .csv .tsv .json .jsonl .ndjson .log .go .py .js .mjs .ts .tsx .jsx
	.rs .c .h .cc .cpp .hpp .cs .java .kt .kts .swift .rb .php .pl .lua .r .scala .sh .bash .zsh .ps1 .sql
	.yaml .yml .toml .ini .cfg .conf .env .xml .css .scss .tex .srt .vtt .diff .patch .proto .graphql .dockerfile .mk`)

// textTypes are the media types, besides text/*, a text file may come as.
var textTypes = strings.Fields(`application/json application/x-ndjson application/xml application/x-yaml application/yaml
	application/toml application/sql application/x-sh application/x-shellscript application/javascript
	application/x-javascript application/typescript application/x-python application/x-httpd-php application/x-php
	application/x-ruby application/x-perl application/x-tex application/csv application/x-subrip application/x-diff`)

// fileKind is how the bot reads a file of this name and media type, or ""
// when it reads no such file: its extension names a kind the bot reads,
// and its media type, as the sender's client gave it, does not say it is
// something else. A name without an extension is read by its type alone,
// when that is text or PDF.
func fileKind(name, mimeType string) string {
	ext := strings.ToLower(path.Ext(strings.TrimSpace(name)))
	mt := strings.ToLower(strings.TrimSpace(strings.Split(mimeType, ";")[0]))
	vague := mt == "" || mt == "application/octet-stream"
	isText := strings.HasPrefix(mt, "text/") || slices.Contains(textTypes, mt)
	switch {
	case ext == ".pdf":
		if vague || mt == "application/pdf" || mt == "application/x-pdf" {
			return readPDF
		}
	case ext == ".html" || ext == ".htm" || ext == ".xhtml":
		if vague || mt == "text/html" || mt == "application/xhtml+xml" || mt == "text/plain" {
			return readHTML
		}
	case ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".webp":
		if mt == "image/jpeg" || mt == "image/png" || mt == "image/webp" {
			return readImage
		}
	case slices.Contains(textExtensions, ext):
		if vague || isText {
			return readText
		}
	case ext == "":
		switch {
		case mt == "application/pdf":
			return readPDF
		case mt == "text/html":
			return readHTML
		case isText:
			return readText
		}
	}
	return ""
}

// kindLabel is how the model and the log are told a file's kind: its
// extension in capitals ("PDF", "GO"), or "text".
func kindLabel(name, kind string) string {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(name)), ".")
	switch {
	case kind == readPDF:
		return "PDF"
	case kind == readHTML:
		return "HTML"
	case ext == "" || utf8.RuneCountInString(ext) > 10:
		return "text"
	}
	return strings.ToUpper(ext)
}

// isDocument reports whether m carries a file sent as a file. An
// animation (a GIF) carries its file as a document too, for older
// clients: it is none.
func isDocument(m *models.Message) bool { return m.Document != nil && m.Animation == nil }

// documentMedia is a document as stored with its message: a picture sent
// as a file is a photo, looked at as one.
func documentMedia(d *models.Document) ryo.Media {
	kind := ryo.MediaDocument
	if fileKind(d.FileName, d.MimeType) == readImage {
		kind = ryo.MediaPhoto
	}
	return ryo.Media{Kind: kind, FileID: d.FileID, UniqueID: d.FileUniqueID, Size: d.FileSize,
		FileName: d.FileName, MimeType: d.MimeType}
}

// documentsOf are m's documents to read.
func documentsOf(m ryo.Message) []ryo.Media {
	var out []ryo.Media
	for _, x := range m.Media {
		if x.Kind == ryo.MediaDocument {
			out = append(out, x)
		}
	}
	return out
}

// sniff checks that a file's bytes are of the kind its name says: a PDF
// starts with its header, text is UTF-8 (or UTF-16 with its mark, or an
// older single-byte encoding) without NULs or other control bytes, and
// HTML is text that starts with markup.
func sniff(kind string, data []byte) error {
	if kind == readPDF {
		if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
			return fmt.Errorf("%w: no PDF header", errNotText)
		}
		return nil
	}
	utf16 := bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})
	if !utf16 && bytes.ContainsFunc(data, func(r rune) bool { return r < 0x20 && !strings.ContainsRune("\t\n\v\f\r\x1b", r) }) {
		return fmt.Errorf("%w: control bytes", errNotText)
	}
	text, ok := knowledge.Decode(data)
	if !ok {
		return fmt.Errorf("%w: not text", errNotText)
	}
	if kind == readHTML && !strings.HasPrefix(strings.TrimLeft(text, "\ufeff \t\r\n"), "<") {
		return fmt.Errorf("%w: no markup", errNotText)
	}
	return nil
}

// documentBytes is the largest file read.
func (b *Bot) documentBytes() int64 {
	if n := b.cfg.Documents.MaxBytes; n > 0 {
		return min(n, delivery.MaxDownloadBytes)
	}
	return DefaultDocumentBytes
}

func (b *Bot) documentBudget() int {
	if n := b.cfg.Documents.Budget; n > 0 {
		return n
	}
	return DefaultDocumentBudget
}

// files reads the documents of what the turn answers (the message at i of
// history, and its burst: see answersOf) that are not yet read — never
// those of group messages kept as context only, nor one refused before
// (but for the answered message's own, in a turn run again) — and shows
// the model the newest file of the history with its text up to the
// budget, read back from the store: the others with a line each. A
// refusal is the sentence the person is told when the answered message's
// own file cannot be read; another's is left out, with a log line. An
// outage of Telegram or the end of the turn's time is an error: the turn
// runs again.
func (b *Bot) files(ctx context.Context, log *slog.Logger, p lang.Printer, chat ryo.Chat, history []ryo.Message, i int) (refusal string, err error) {
	var ids []int64
	for _, m := range history {
		if len(documentsOf(m)) > 0 {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	stored, err := b.db.ChatFiles(ctx, chat.ID, ids)
	if err != nil {
		return "", err
	}
	aside, err := b.db.ContextOnly(ctx, ids) // a group's files not meant for the bot are never read
	if err != nil {
		return "", err
	}
	refused, err := b.db.MarkedFiles(ctx, ids, memory.FileRefused) // a file refused once is not downloaded again
	if err != nil {
		return "", err
	}
	ours, tried := answersOf(history, i), 0
	for j := len(history) - 1; j >= 0; j-- {
		m := history[j]
		if _, ok := stored[m.ID]; ok || !ours(j) || aside[m.ID] || refused[m.ID] && j != i || len(documentsOf(m)) == 0 {
			continue
		}
		if tried == filesRead { // past what one turn reads: the model is told the file was not read
			f := documentsOf(m)[0]
			name := knowledge.Name(f.FileName)
			log.InfoContext(ctx, "a document past the files one turn reads: not read", "message_id", m.TelegramID, "file", name)
			history[j].Text = withFile(history[j].Text, fmt.Sprintf(fileUnread, name, filesRead))
			continue
		}
		tried++
		d, refusal, err := b.readDocument(ctx, log, p, chat, m, documentsOf(m)[0])
		if err == nil && refusal != "" {
			err = b.db.MarkFile(ctx, m.ID, memory.FileRefused)
		}
		switch {
		case err != nil:
			return "", err
		case refusal != "" && j == i:
			return refusal, nil
		case refusal == "":
			stored[m.ID] = d
		}
	}
	cut, err := b.db.MarkedFiles(ctx, ids, memory.FileCut)
	if err != nil {
		return "", err
	}
	return "", b.showFiles(ctx, chat, history, stored, cut)
}

// showFiles adds to the history's messages that came with a file the
// file's text: the newest one's up to the budget, with a note of how much
// is shown; the others' a line saying the file is searchable.
func (b *Bot) showFiles(ctx context.Context, chat ryo.Chat, history []ryo.Message, stored map[int64]ryo.Document, cut map[int64]bool) error {
	newest := true
	for j := len(history) - 1; j >= 0; j-- {
		d, ok := stored[history[j].ID]
		if !ok {
			continue
		}
		if newest {
			newest = false
			chunks, total, err := b.db.ChatFileText(ctx, chat.ID, d.ID, b.documentBudget())
			if err != nil {
				return err
			}
			history[j].Text = withFile(history[j].Text, fileBlock(d, chunks, total, b.documentBudget(), cut[history[j].ID]))
			continue
		}
		history[j].Text = withFile(history[j].Text, fmt.Sprintf("[File “%s” (%s, %s): its text is not shown here; search it with knowledge_search.]",
			d.Name, d.Source, kilobytes(lang.Printer{}, d.Bytes))) // the model is told in English
	}
	return nil
}

func withFile(text, block string) string {
	if strings.TrimSpace(text) == "" {
		return block
	}
	return text + "\n\n" + block
}

// fileBlock is a file as the model is shown it: what it is, how much of
// its text is shown and where the rest is, then the text. partial says
// the file was longer than the passages kept of it: only those are.
func fileBlock(d ryo.Document, chunks []ryo.Chunk, total, budget int, partial bool) string {
	var text strings.Builder
	heading := ""
	for _, c := range chunks {
		if text.Len() > 0 {
			text.WriteString("\n\n")
		}
		if c.Heading != heading && c.Heading != "" {
			text.WriteString("# " + c.Heading + "\n\n")
		}
		heading = c.Heading
		text.WriteString(c.Text)
	}
	shown, cut := cutText(text.String(), budget)
	shown = quoteFraming(shown)
	var note string
	switch {
	case partial:
		note = fmt.Sprintf("only its first %s passages were kept (about %s characters), the rest of the file is lost; shown below: the first %s characters of those, and knowledge_search finds any part of them — say that the file was too long to keep whole",
			thousands(d.Chunks), thousands(total), thousands(utf8.RuneCountInString(shown)))
	case cut:
		note = fmt.Sprintf("shown below: its first %s of about %s characters, cut there — the rest is not shown, and knowledge_search finds any part of it",
			thousands(utf8.RuneCountInString(shown)), thousands(total))
	default:
		note = fmt.Sprintf("shown below whole (%s characters); knowledge_search finds it too", thousands(total))
	}
	end := "[End of “" + d.Name + "”.]"
	if cut {
		end = "[End of what is shown of “" + d.Name + "”.]"
	}
	return fmt.Sprintf("[File “%s” (%s, %s) sent with this message; %s.]\n%s\n%s", d.Name, d.Source, kilobytes(lang.Printer{}, d.Bytes), note, shown, end)
}

// quoteFraming turns the opening bracket of any line of a file's text
// that reads as the lines framing a file — "[End of …", "[File “…" — in
// any bracket and case, past invisible characters, into "(": a file
// cannot end itself early and pass what follows for its sender's words.
func quoteFraming(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		rest := strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
		open, size := utf8.DecodeRuneInString(rest)
		if !unicode.Is(unicode.Ps, open) {
			continue
		}
		word := strings.ToLower(strings.TrimLeftFunc(rest[size:], func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) }))
		if strings.HasPrefix(word, "end of") || strings.HasPrefix(word, "file “") || strings.HasPrefix(word, "file \"") {
			at := len(line) - len(rest)
			lines[i] = line[:at] + "(" + rest[size:]
		}
	}
	return strings.Join(lines, "\n")
}

// cutText is text cut to at most budget characters, between visible
// characters; cut says whether anything was left out.
func cutText(text string, budget int) (string, bool) {
	runes := []rune(text)
	if len(runes) <= budget {
		return text, false
	}
	i := budget
	for i > 0 && !render.Cuttable(runes, i) {
		i--
	}
	return string(runes[:i]), true
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// readDocument downloads the document f of stored message m, reads its
// text and stores it, split into passages, as the chat's; refusal is the
// sentence its sender is told when it cannot be read.
func (b *Bot) readDocument(ctx context.Context, log *slog.Logger, p lang.Printer, chat ryo.Chat, m ryo.Message, f ryo.Media) (ryo.Document, string, error) {
	name := knowledge.Name(f.FileName)
	kind := fileKind(f.FileName, f.MimeType)
	limit := b.documentBytes()
	log = log.With("message_id", m.TelegramID, "file", name, "mime_type", f.MimeType, "file_size", f.Size)
	switch {
	case kind == "" || kind == readImage:
		log.InfoContext(ctx, "a document of a kind ryo does not read")
		return ryo.Document{}, p.Sprintf(docUnsupported, name), nil
	case f.Size > limit:
		log.InfoContext(ctx, "a document too big to read", "limit", limit)
		return ryo.Document{}, p.Sprintf(docTooBig, name, kilobytes(p, limit)), nil
	}
	data, err := b.tg.Download(ctx, f.FileID, limit)
	switch {
	case errors.Is(err, delivery.ErrFileTooBig):
		log.InfoContext(ctx, "a document too big to read", "limit", limit)
		return ryo.Document{}, p.Sprintf(docTooBig, name, kilobytes(p, limit)), nil
	case err != nil && (ctx.Err() != nil || ryo.IsUnavailable(err, ryo.Telegram)):
		return ryo.Document{}, "", err // shutdown or an outage: the turn runs again later, and the file is fetched then
	case err != nil:
		log.WarnContext(ctx, "Telegram would not hand over a document", "err", err)
		return ryo.Document{}, p.Sprintf(docRefused, name), nil
	}
	label := kindLabel(name, kind)
	if err := sniff(kind, data); err != nil {
		log.InfoContext(ctx, "a document whose bytes are not of its kind", "err", err)
		return ryo.Document{}, p.Sprintf(docNotText, name, label), nil
	}
	r, err := b.extract(ctx, kind, data, name)
	switch {
	case err != nil && ctx.Err() != nil:
		return ryo.Document{}, "", err
	case errors.Is(err, knowledge.ErrEmpty):
		log.InfoContext(ctx, "a document with no text in it", "err", err)
		return ryo.Document{}, p.Sprintf(docNoText, name), nil
	case errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(ctx, "reading a document's text took too long", "err", err)
		return ryo.Document{}, p.Sprintf(docSlow, name), nil
	case err != nil:
		log.WarnContext(ctx, "could not read a document's text", "err", err)
		return ryo.Document{}, p.Sprintf(docFailed, name), nil
	}
	chunks, title, err := knowledge.Split(r.Text, 0)
	if errors.Is(err, knowledge.ErrEmpty) {
		log.InfoContext(ctx, "a document with no text in it")
		return ryo.Document{}, p.Sprintf(docNoText, name), nil
	}
	if err != nil {
		return ryo.Document{}, "", err
	}
	if n := b.knowledgeChunks(); len(chunks) > n {
		log.InfoContext(ctx, "a document longer than the passages kept of one: only its first part is kept", "passages", len(chunks), "kept", n)
		chunks = chunks[:n]
		if err := b.db.MarkFile(ctx, m.ID, memory.FileCut); err != nil { // before the file is stored: a turn run again marks it then
			return ryo.Document{}, "", err
		}
	}
	b.embedChunks(ctx, log, chunks)
	d, err := b.db.SaveChatFile(ctx, ryo.Document{Chat: chat.ID, Name: name, Title: clip(cmp.Or(r.Title, title), knowledge.MaxHeading),
		Source: label, AddedBy: senderID(m), Bytes: int64(len(data)), Message: m.ID}, chunks)
	if err != nil {
		return ryo.Document{}, "", err
	}
	log.InfoContext(ctx, "a document read", "document", d.ID, "passages", d.Chunks)
	return d, "", nil
}

func senderID(m ryo.Message) int64 {
	if m.Sender == nil {
		return 0
	}
	return m.Sender.ID
}

// extract reads a file's text: text as it is, HTML and PDF with the
// knowledge base's reader (the web fetcher's worker, in bounded memory).
func (b *Bot) extract(ctx context.Context, kind string, data []byte, name string) (knowledge.Reading, error) {
	if kind == readText {
		text, _ := knowledge.Decode(data) // sniff has told it is text
		return knowledge.Reading{Text: text}, nil
	}
	contentType := map[string]string{readHTML: "text/html", readPDF: "application/pdf"}[kind]
	ctx, cancel := context.WithTimeout(ctx, extractTimeout)
	defer cancel()
	if b.cfg.Knowledge.Extract == nil {
		return knowledge.Text(data, name, contentType)
	}
	return b.cfg.Knowledge.Extract(ctx, data, name, contentType)
}
