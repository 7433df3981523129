package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/knowledge"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/toolbus"
)

// The knowledge base: admins add documents — a file sent with /knowledge
// add as its caption or answered with it, or a page by its URL — which
// knowledge_search then finds. A document added in a group is that
// group's; one added in a private chat is for every conversation.

// KnowledgeConfig is how /knowledge add reads documents, and its bounds.
type KnowledgeConfig struct {
	MaxBytes  int64 // the largest file or page added; DefaultKnowledgeBytes when 0
	MaxChunks int   // the most chunks of one document; DefaultKnowledgeChunks when 0
	// Extract reads a file's bytes as text with Markdown headings;
	// knowledge.Text (plain text, Markdown, HTML) when nil.
	Extract func(ctx context.Context, data []byte, name, contentType string) (knowledge.Reading, error)
	// Pages reads the page at a URL for /knowledge add <url>; with none,
	// only files are added.
	Pages PageReader
	// EmbedTimeout bounds the embedding of one document's chunks; two
	// minutes when 0.
	EmbedTimeout time.Duration
}

// PageReader reads a web page as text with Markdown headings, refusing
// addresses the bot must not reach; the web fetcher is one.
type PageReader interface {
	Read(ctx context.Context, url string) (knowledge.Reading, error)
}

// Default bounds of the knowledge base.
const (
	DefaultKnowledgeBytes  = 10 << 20
	DefaultKnowledgeChunks = 2000
)

// knowledgeCommand is /knowledge.
func (b *Bot) knowledgeCommand(p lang.Printer) command {
	return command{name: "knowledge", help: p.Sprintf("the documents I answer from: /knowledge show <id>; admins add and delete them"), run: b.knowledgeCmd}
}

const usageKnowledge = "Usage:\n/knowledge — the documents I answer from here\n/knowledge show <id>\n" +
	"Admins: send a .txt, .md, .html or .pdf file with /knowledge add as its caption (or answer one with it), " +
	"or /knowledge add <url>; /knowledge delete <id>. Added in a group, a document is the group's; in our private chat, everyone's."

// knowledgeCmd is /knowledge: the list, one document, and for admins
// adding and deleting.
func (b *Bot) knowledgeCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	if len(args) == 0 {
		return b.sendView(ctx, c, viewKnowledge, viewSubject{ID: c.chat.ID, Label: c.p.Sprintf("📚 Knowledge base")},
			c.p.Sprintf("The knowledge base is empty here. Admins add documents with /knowledge add."))
	}
	rest := strings.TrimSpace(strings.TrimPrefix(c.args, args[0]))
	switch strings.ToLower(args[0]) {
	case "show":
		id, ok := documentID(rest)
		if !ok {
			return b.reply(ctx, c, c.p.Sprintf(usageKnowledge))
		}
		return b.showDocument(ctx, c, id)
	case "add", "delete":
		if !b.isAdmin(c.user) {
			return b.reply(ctx, c, c.p.Sprintf("Only admins add and delete the knowledge base's documents."))
		}
		if strings.ToLower(args[0]) == "add" {
			return b.addDocument(ctx, c, rest)
		}
		id, ok := documentID(rest)
		if !ok {
			return b.reply(ctx, c, c.p.Sprintf(usageKnowledge))
		}
		return b.askToDelete(ctx, c, id)
	}
	return b.reply(ctx, c, c.p.Sprintf(usageKnowledge))
}

func documentID(s string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	return id, err == nil && id > 0
}

// knowledgeChat is the chat whose documents a conversation adds: the
// group, or 0 — every conversation's — in a private chat.
func knowledgeChat(c ryo.Chat) int64 {
	if c.Type.IsGroup() {
		return c.ID
	}
	return 0
}

// source is a document to add, read.
type source struct {
	knowledge.Reading
	name, from string
	bytes      int64
}

// addDocument is /knowledge add: the document the message carries, the
// one it answers, or the page at the URL given.
func (b *Bot) addDocument(ctx context.Context, c call, arg string) error {
	var src source
	var problem string
	var err error
	switch doc := documentOf(c.msg); {
	case arg != "":
		src, problem, err = b.readPage(ctx, c.p, arg)
	case doc != nil:
		src, problem, err = b.readFile(ctx, c.p, doc)
	default:
		return b.reply(ctx, c, c.p.Sprintf(usageKnowledge))
	}
	if err != nil || problem != "" {
		return b.replyProblem(ctx, c, problem, err)
	}
	chunks, title, err := knowledge.Split(src.Text, b.knowledgeChunks())
	var tooMany *knowledge.TooManyChunksError
	switch {
	case errors.Is(err, knowledge.ErrEmpty):
		return b.reply(ctx, c, c.p.Sprintf("I found no text in “%s”.", src.name))
	case errors.As(err, &tooMany):
		return b.reply(ctx, c, c.p.Sprintf("“%s” is too long for me: it makes %d passages, and a document may have at most %d. Split it into smaller files.",
			src.name, tooMany.Chunks, tooMany.Max))
	case err != nil:
		return err
	}
	if src.Title == "" {
		src.Title = title
	}
	b.embedChunks(ctx, b.log.With("update_id", c.update, "document", src.name), chunks)
	d, old, err := b.db.AddDocument(ctx, ryo.Document{Chat: knowledgeChat(c.chat), Name: src.name, Title: src.Title, Source: src.from,
		AddedBy: c.user.ID, Bytes: src.bytes}, chunks)
	if err != nil {
		return err
	}
	b.log.InfoContext(ctx, "document added to the knowledge base", "update_id", c.update, "chat_id", c.chat.ID, "by", c.user.ID,
		"document", d.ID, "chunks", d.Chunks, "replaced", old.ID)
	text := c.p.Sprintf("📚 Added “%s” as #%d for %s: %s.", d.Name, d.ID, scopeOf(c.p, d), passages(c.p, d.Chunks))
	if old.ID != 0 {
		text += " " + c.p.Sprintf("It replaces #%d, of the same name.", old.ID)
	}
	if src.Truncated {
		text += " " + c.p.Sprintf("It was too long to read whole: only its first part was added.")
	}
	return b.reply(ctx, c, text)
}

// documentOf is the file a /knowledge add carries, or answers.
func documentOf(m *models.Message) *models.Document {
	if m.Document != nil {
		return m.Document
	}
	if r := repliedTo(m); r != nil {
		return r.Document
	}
	return nil
}

// replyProblem answers an add that could not read its document: with the
// problem when there is one, else saying that reading failed, and logging
// why.
func (b *Bot) replyProblem(ctx context.Context, c call, problem string, err error) error {
	if problem == "" {
		b.log.WarnContext(ctx, "could not read a document to add", "update_id", c.update, "chat_id", c.chat.ID, "err", err)
		problem = c.p.Sprintf("I could not download that file from Telegram just now — try again in a moment.")
	}
	return b.reply(ctx, c, problem)
}

func (b *Bot) knowledgeBytes() int64 {
	if b.cfg.Knowledge.MaxBytes > 0 {
		return b.cfg.Knowledge.MaxBytes
	}
	return DefaultKnowledgeBytes
}

func (b *Bot) knowledgeChunks() int {
	if b.cfg.Knowledge.MaxChunks > 0 {
		return b.cfg.Knowledge.MaxChunks
	}
	return DefaultKnowledgeChunks
}

// readFile downloads and reads a document someone sent; problem says
// what is wrong with it, for the admin.
func (b *Bot) readFile(ctx context.Context, p lang.Printer, doc *models.Document) (src source, problem string, err error) {
	name := knowledge.Name(doc.FileName)
	kind := knowledge.Kind(name, doc.MimeType)
	limit := min(b.knowledgeBytes(), delivery.MaxDownloadBytes) // Telegram lets a bot download no more
	switch {
	case kind == "":
		return src, p.Sprintf("I add .txt, .md, .html and .pdf files to the knowledge base; “%s” is none of them.", name), nil
	case doc.FileSize > limit:
		return src, tooBig(p, name, doc.FileSize, limit), nil
	}
	data, err := b.tg.Download(ctx, doc.FileID, limit)
	switch {
	case errors.Is(err, delivery.ErrFileTooBig):
		return src, tooBig(p, name, doc.FileSize, limit), nil
	case err != nil:
		return src, "", err
	}
	extract := b.cfg.Knowledge.Extract
	if extract == nil {
		extract = func(_ context.Context, data []byte, name, contentType string) (knowledge.Reading, error) {
			return knowledge.Text(data, name, contentType)
		}
	}
	r, err := extract(ctx, data, name, doc.MimeType)
	if errors.Is(err, knowledge.ErrUnsupported) && kind == "pdf" {
		return src, p.Sprintf("I cannot read PDF files here yet; send “%s” as a .txt, .md or .html file.", name), nil
	}
	if err != nil {
		b.log.InfoContext(ctx, "a document to add could not be read", "file", name, "err", err)
		return src, p.Sprintf("I could not read “%s”: %s.", name, clip(err.Error(), 300)), nil
	}
	return source{Reading: r, name: name, from: name, bytes: int64(len(data))}, "", nil
}

// readPage reads the page at the URL an admin gave.
func (b *Bot) readPage(ctx context.Context, p lang.Printer, raw string) (src source, problem string, err error) {
	u, perr := url.Parse(raw)
	switch {
	case perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(raw, " \n"):
		return src, p.Sprintf("Send /knowledge add with a web address (https://…), or as the caption of a file."), nil
	case u.User != nil: // a secret: never logged, nor repeated where the group reads it
		return src, p.Sprintf("I do not read addresses with a user name or password in them; send the page as a file instead."), nil
	case b.cfg.Knowledge.Pages == nil:
		return src, p.Sprintf("I cannot read web pages here; send the document as a file with /knowledge add as its caption."), nil
	}
	shown := pageName(u)
	r, err := b.cfg.Knowledge.Pages.Read(ctx, raw)
	if err != nil {
		b.log.InfoContext(ctx, "a page to add could not be read", "url", shown, "err", scrubQuery(err, u))
		return src, p.Sprintf("I could not read %s: %s.", shown, clip(scrubQuery(err, u).Error(), 300)), nil
	}
	if limit := b.knowledgeBytes(); int64(len(r.Text)) > limit {
		return src, tooBig(p, shown, int64(len(r.Text)), limit), nil
	}
	return source{Reading: r, name: knowledge.Name(shown), from: shown, bytes: int64(len(r.Text))}, "", nil
}

// pageName is a page's address as documents, lists, replies and logs show
// it: without its query and fragment, where a token or a signature may
// ride, which only the reading of the page needs.
func pageName(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
}

// scrubQuery is err without the page's query in its words: an error of
// the reading may quote the whole address.
func scrubQuery(err error, u *url.URL) error {
	if u.RawQuery == "" || !strings.Contains(err.Error(), u.RawQuery) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), u.RawQuery, "…"))
}

func tooBig(p lang.Printer, name string, size, limit int64) string {
	if size > 0 {
		return p.Sprintf("“%s” is %s; a document may be at most %s.", name, kilobytes(p, size), kilobytes(p, limit))
	}
	return p.Sprintf("“%s” is too big: a document may be at most %s.", name, kilobytes(p, limit))
}

func megabytes(p lang.Printer, n int64) string {
	return p.Sprintf("%s MB", strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64))
}

// embedChunks gives chunks their embeddings when an embedding model is
// configured; when it fails, the document is kept for its words alone,
// and the log says so.
func (b *Bot) embedChunks(ctx context.Context, log *slog.Logger, chunks []ryo.Chunk) {
	if b.cfg.Recall.Embedder == nil {
		return
	}
	timeout := b.cfg.Knowledge.EmbedTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := knowledge.Embed(ctx, b.cfg.Recall.Embedder, chunks); err != nil {
		log.WarnContext(ctx, "could not embed a document's passages; it is found by its words alone", "err", err)
	}
}

func passages(p lang.Printer, n int) string {
	return p.Sprintf("%d passages", n)
}

func scopeOf(p lang.Printer, d ryo.Document) string {
	if d.Global() {
		return p.Sprintf("everyone")
	}
	return p.Sprintf("this group")
}

// showDocument is /knowledge show <id>.
func (b *Bot) showDocument(ctx context.Context, c call, id int64) error {
	d, o, ok, err := b.db.Document(ctx, c.chat.ID, id, 20)
	if err != nil {
		return err
	}
	if !ok {
		return b.reply(ctx, c, c.p.Sprintf("There is no document #%d here — /knowledge lists them with their ids.", id))
	}
	var s strings.Builder
	fmt.Fprintf(&s, "📚 #%d %s", d.ID, d.Name)
	if d.Title != "" && d.Title != d.Name {
		fmt.Fprintf(&s, " — %s", d.Title)
	}
	s.WriteString("\n" + c.p.Sprintf("Source: %s\n%s · %s · for %s · added %s", d.Source, passages(c.p, d.Chunks), kilobytes(c.p, d.Bytes), scopeOf(c.p, d),
		c.p.Date(d.AddedAt.In(b.cfg.Location), "2 Jan 2006")))
	if len(o.Sections) > 0 {
		s.WriteString("\n\n" + c.p.Sprintf("Sections:"))
		for _, sec := range o.Sections {
			s.WriteString("\n• " + clip(sec, 120))
		}
	}
	s.WriteString("\n\n" + c.p.Sprintf("First passage:\n%s", clip(o.First.Text, 800)))
	return b.reply(ctx, c, s.String())
}

// kilobytes says a size as people read it: bytes under a kilobyte, then
// kilobytes, then megabytes.
func kilobytes(p lang.Printer, n int64) string {
	switch {
	case n >= 1<<20:
		return megabytes(p, n)
	case n < 1024:
		return p.Sprintf("%d bytes", n)
	}
	return p.Sprintf("%d KB", (n+1023)/1024)
}

// knowledgeLines is a page of the documents chat sees.
func (b *Bot) knowledgeLines(ctx context.Context, p lang.Printer, chat int64, n int) ([]string, int, error) {
	list, total, err := b.db.Documents(ctx, chat, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, d := range list {
		lines[i] = p.Sprintf("#%d · %s · %s · for %s · %s, %s", d.ID, clip(d.Name, 80), passages(p, d.Chunks), scopeOf(p, d),
			orSomeone(p, d.AddedByName), p.Date(d.AddedAt.In(b.cfg.Location), "2 Jan 2006"))
	}
	return lines, total, nil
}

// askToDelete asks the admin to confirm deleting document id.
func (b *Bot) askToDelete(ctx context.Context, c call, id int64) error {
	if _, _, ok, err := b.db.Document(ctx, c.chat.ID, id, 0); err != nil || !ok {
		if err != nil {
			return err
		}
		return b.reply(ctx, c, c.p.Sprintf("There is no document #%d here — /knowledge lists them with their ids.", id))
	}
	args, _ := json.Marshal(map[string]int64{"document_id": id})
	return b.askCommand(ctx, c, "knowledge_delete", args, ryo.OriginAdmin)
}

const knowledgeDeleteSchema = `{"type":"object","properties":{"document_id":{"type":"integer","minimum":1}},
	"required":["document_id"],"additionalProperties":false}`

// knowledgeDeleteTool is the tool behind /knowledge delete: a document of
// the chat it is asked in (or a global one) deleted with its passages,
// once the admin confirms.
func knowledgeDeleteTool(db *memory.DB) toolbus.Spec {
	return toolbus.Spec{Name: "knowledge_delete", Effect: toolbus.Destructive, Tags: []string{"knowledge:delete"}, Category: toolbus.Knowledge,
		Examples:    []toolbus.Example{{Question: "/knowledge delete 12", Arguments: json.RawMessage(`{"document_id":12}`)}},
		Description: "Delete a document and its passages from the knowledge base, by its id; for admins, after they confirm.",
		Schema:      json.RawMessage(knowledgeDeleteSchema),
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			chat, id, err := knowledgeDeleteArgs(ctx, args)
			if err != nil {
				return nil, err
			}
			d, ok, err := db.DeleteDocument(ctx, chat, id)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, toolbus.Errorf("not_found", "there is no document #%d here", id)
			}
			return map[string]any{"deleted": d.ID, "name": d.Name}, nil
		}),
		Explain: func(ctx context.Context, args json.RawMessage) string {
			chat, id, err := knowledgeDeleteArgs(ctx, args)
			if err != nil {
				return ""
			}
			d, _, ok, err := db.Document(ctx, chat, id, 0)
			switch {
			case err != nil:
				return ""
			case !ok:
				return lang.FromContext(ctx).Sprintf("There is no document #%d here, so this would change nothing.", id)
			}
			p := lang.FromContext(ctx)
			return p.Sprintf("Delete “%s” (#%d, %s, for %s) from the knowledge base.", d.Name, d.ID, passages(p, d.Chunks), scopeOf(p, d))
		},
		Happened: func(ctx context.Context, args json.RawMessage) toolbus.Happening {
			chat, id, err := knowledgeDeleteArgs(ctx, args)
			if err != nil {
				return toolbus.Unknown
			}
			switch _, _, ok, err := db.Document(ctx, chat, id, 0); {
			case err != nil:
				return toolbus.Unknown
			case ok:
				return toolbus.NotHappened
			}
			return toolbus.Happened
		}}
}

func knowledgeDeleteArgs(ctx context.Context, raw json.RawMessage) (chat, id int64, err error) {
	var args struct {
		ID int64 `json:"document_id"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return 0, 0, err
	}
	c, ok := ryo.CallerOf(ctx)
	if !ok {
		return 0, 0, errors.New("knowledge_delete called without a caller")
	}
	return c.Chat.ID, args.ID, nil
}
