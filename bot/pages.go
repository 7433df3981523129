package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// Long lists — memories, tags — are sent a page at a time with ◀ and ▶
// buttons. The buttons carry the view's opaque id and the page to show
// ("pg:<id>:<page>"); the view, stored, says what is listed and for whom.
// A view's buttons work only on the message it was sent as, in its chat,
// for viewLife; only the person who asked for the list turns its pages,
// while they may still use the bot, and admin lists only while they are
// still admins (judgePage).

const (
	pagePrefix = "pg:"
	pageSize   = 10
	maxRecall  = 50 // memories a search lists at most
	// maxPage bounds the page a press may ask for: far past any list, and
	// far below where page × pageSize would overflow.
	maxPage = 1 << 20
	// viewLife is how long a list's buttons turn its pages: past it, the
	// list is asked for again, and shows what is true then.
	viewLife = 24 * time.Hour
)

// viewKind is what a paged list lists. It is stored with the view, as its
// kind, and read back when a page is turned.
type viewKind string

// View kinds.
const (
	viewMemories  viewKind = "memories"  // a shelf's memories
	viewSearch    viewKind = "search"    // memories of every shelf that match a query (admins)
	viewTags      viewKind = "tags"      // the most used tags (admins)
	viewTagged    viewKind = "tagged"    // the messages and memories with one tag (admins)
	viewUsers     viewKind = "users"     // the people the bot knows (admins)
	viewDead      viewKind = "dead"      // the updates the bot could not handle (admins)
	viewTools     viewKind = "tools"     // the catalog of tools, browsed by category
	viewKnowledge viewKind = "knowledge" // the documents of a chat's knowledge base
	viewModels    viewKind = "models"    // the installed models, and which answers in the chat (cmd_model.go)
	viewSettings  viewKind = "settings"  // a chat's settings, with a screen for each (cmd_settings.go)
)

// viewSubject is what a view lists.
type viewSubject struct {
	Scope ryo.Scope `json:"scope,omitempty"` // viewMemories: the shelf
	ID    int64     `json:"id,omitempty"`
	Label string    `json:"label,omitempty"` // "Your memories", "Bob's memories", …
	Admin bool      `json:"admin,omitempty"` // an admin's list
	Query string    `json:"query,omitempty"` // viewSearch
	Tag   string    `json:"tag,omitempty"`   // viewTagged
}

// page is one page of a view, as text.
type page struct {
	text  string
	pages int
	// buttons, when set, are the page's own (a catalog's screens), in
	// place of ◀ and ▶.
	buttons []delivery.Button
}

// sendView answers command c with the first page of a new view.
func (b *Bot) sendView(ctx context.Context, c call, kind viewKind, subject viewSubject, empty string) error {
	raw, _ := json.Marshal(subject)
	v := memory.View{ID: newActionID(), Kind: string(kind), Viewer: c.user.ID, Chat: c.chat.ID, Subject: raw, Update: c.update}
	p, err := b.renderPage(ctx, c.p, v, 0, "")
	if err != nil {
		return err
	}
	if p.pages == 0 {
		return b.reply(ctx, c, empty)
	}
	if p.pages == 1 && p.buttons == nil {
		return b.reply(ctx, c, p.text)
	}
	if err := b.db.SaveView(ctx, v); err != nil {
		return err
	}
	return b.replyOnce(ctx, c.w, c.update, c.place, c.msg.ID, p.text, p.buttonsOf(c.p, v.ID, 0)...)
}

// buttonsOf is page n's buttons in view id.
func (p page) buttonsOf(w lang.Printer, id string, n int) []delivery.Button {
	if p.buttons != nil {
		return p.buttons
	}
	return pageButtons(w, id, n, p.pages)
}

func pageButtons(w lang.Printer, id string, n, pages int) []delivery.Button {
	var out []delivery.Button
	if n > 0 {
		out = append(out, delivery.Button{Text: w.Sprintf("◀ Back"), Data: pagePrefix + id + ":" + strconv.Itoa(n-1)})
	}
	if n < pages-1 {
		out = append(out, delivery.Button{Text: w.Sprintf("Next ▶"), Data: pagePrefix + id + ":" + strconv.Itoa(n+1)})
	}
	return out
}

// pageFacts are what a press on a list's button is judged on.
type pageFacts struct {
	found     bool // the view exists, and the page asked for is a page
	sameMsg   bool // pressed on the message the view was sent as, in its chat
	fresh     bool // younger than viewLife
	mayUse    bool // the presser may use the bot now
	viewer    bool // the presser asked for it, or speaks for the chat that did
	forAdmins bool // an admin's list
	admin     bool // the presser is an admin now
}

// pageVerdict is whether a press may turn a list's page, and if not, why.
type pageVerdict int

const (
	pageTurns     pageVerdict = iota
	pageStale                 // unknown, forged, or pressed on another message: "This button no longer works."
	pageExpired               // older than viewLife
	pageMayNotUse             // banned, or no longer let in
	pageNotTheirs             // someone else's list, or an admin's list and the presser is not one now
)

// slowDownPages answers a press past the presser's allowance.
const slowDownPages = "🐢 You're turning pages faster than I can show them — give me a moment, then press again."

// judgePage decides whether a press may turn a list's page.
func judgePage(f pageFacts) pageVerdict {
	switch {
	case !f.found || !f.sameMsg:
		return pageStale
	case !f.fresh:
		return pageExpired
	case !f.mayUse:
		return pageMayNotUse
	case !f.viewer || f.forAdmins && !f.admin:
		return pageNotTheirs
	}
	return pageTurns
}

// onPage turns a view's page, as judgePage allows.
func (b *Bot) onPage(ctx context.Context, j *job, q *models.CallbackQuery) error {
	v, n, screen, f, err := b.loadPage(ctx, q)
	if err != nil {
		return err
	}
	w := b.wordsAt(ctx, q)
	switch judgePage(f) {
	case pageStale:
		b.log.InfoContext(ctx, "list button pressed on a message or chat not its own, or unknown", "update_id", j.id, "user_id", q.From.ID)
		return b.answerPress(ctx, j.w, q, w.Sprintf(staleButton), false)
	case pageExpired:
		return b.answerPress(ctx, j.w, q, w.Sprintf("This list is out of date — send the command again for a fresh one."), false)
	case pageMayNotUse:
		return b.answerPress(ctx, j.w, q, w.Sprintf(refusedBanned), true)
	case pageNotTheirs:
		if viewKind(v.Kind) == viewModels && f.forAdmins {
			return b.answerPress(ctx, j.w, q, w.Sprintf(onlyAdminsChoose), true)
		}
		if viewKind(v.Kind) == viewSettings {
			return b.answerPress(ctx, j.w, q, w.Sprintf(onlySetters), true)
		}
		return b.answerPress(ctx, j.w, q, w.Sprintf("Only the person who asked for this list can turn its pages."), true)
	}
	// A turn of a page is an edit, which costs the chat's share of
	// Telegram's limits like an answer: it costs the presser an allowance
	// of page turns (admins have none) — twice a person's burst and three
	// times their rate, as browsing a list or the catalog takes a few
	// presses in a row.
	if ok, _ := b.pageTurns.take(q.From.ID, b.cfg.Clock.Now()); !ok && !f.admin {
		return b.answerPress(ctx, j.w, q, w.Sprintf(slowDownPages), false)
	}
	if viewKind(v.Kind) == viewSettings {
		return b.onSettingsScreen(ctx, j, q, v, screen)
	}
	if viewKind(v.Kind) == viewModels && screen != "" {
		return b.onModelScreen(ctx, j, q, w, v, n, screen, f.admin)
	}
	if strings.HasPrefix(screen, "u") {
		return b.useFromCatalog(ctx, j, q, w, v, screen)
	}
	return b.showPage(ctx, j, q, w, v, n, screen, "")
}

// loadPage loads the view a list's button names, the page it asks for
// (and in a catalog, the screen: "pg:<view>:<page>:<screen>"), and the
// facts the press is judged on.
func (b *Bot) loadPage(ctx context.Context, q *models.CallbackQuery) (v memory.View, n int, screen string, f pageFacts, err error) {
	id, rest, _ := strings.Cut(strings.TrimPrefix(q.Data, pagePrefix), ":")
	num, screen, _ := strings.Cut(rest, ":")
	n, nerr := strconv.Atoi(num)
	v, found, err := b.db.View(ctx, id)
	if err != nil {
		return v, 0, "", pageFacts{}, err
	}
	f.found = found && nerr == nil && n >= 0 && n <= maxPage && (screen == "" || viewKind(v.Kind) == viewTools || viewKind(v.Kind) == viewModels || viewKind(v.Kind) == viewSettings)
	f.sameMsg = shownOn(q.Message.Message, v)
	if !f.found || !f.sameMsg {
		return v, n, screen, f, nil
	}
	f.fresh = b.cfg.Clock.Now().Sub(v.CreatedAt) < viewLife
	presser, err := b.db.SaveUser(ctx, pressedBy(q), false)
	if err != nil {
		return v, n, screen, f, err
	}
	var subject viewSubject
	_ = json.Unmarshal(v.Subject, &subject) // stored by sendView
	f.mayUse, f.forAdmins, f.admin = b.mayTalk(presser), subject.Admin, b.isAdmin(presser)
	f.viewer, err = b.speaksFor(ctx, presser, v.Viewer, v.Chat)
	if viewKind(v.Kind) == viewModels && f.forAdmins && f.admin {
		f.viewer = true // any admin may choose on an admin's list of models
	}
	if viewKind(v.Kind) == viewSettings && err == nil {
		f.viewer, err = b.maySet(ctx, presser, v.Chat) // whoever may change the chat's settings now, not only who asked
	}
	return v, n, screen, f, err
}

// shownOn reports whether m is the message view v was sent as: in its
// chat, and the message recorded for it — or, in the moment between the
// list being sent and its message being recorded, a message that carries
// this view's own buttons, as Telegram hands the pressed message over.
func shownOn(m *models.Message, v memory.View) bool {
	if m == nil || m.Chat.ID != v.Chat {
		return false
	}
	if v.Message != 0 {
		return m.ID == v.Message
	}
	if m.ReplyMarkup == nil {
		return false
	}
	for _, row := range m.ReplyMarkup.InlineKeyboard {
		for _, b := range row {
			if strings.HasPrefix(b.CallbackData, pagePrefix+v.ID+":") {
				return true
			}
		}
	}
	return false
}

// showPage shows page n of view v (on a catalog's screen) in the message
// pressed, answering the press with toast.
func (b *Bot) showPage(ctx context.Context, j *job, q *models.CallbackQuery, w lang.Printer, v memory.View, n int, screen, toast string) error {
	p, err := b.renderPage(ctx, w, v, n, screen)
	if err != nil {
		return err
	}
	n = min(n, max(p.pages-1, 0))
	if err := b.answerPress(ctx, j.w, q, toast, false); err != nil {
		return err
	}
	place := placeOf(q.Message.Message)
	err = j.w.idle(func() error {
		return b.tg.EditButtons(ctx, place, q.Message.Message.ID, render.Part{Plain: render.Text(p.text, render.MaxUnits).Plain},
			p.buttonsOf(w, v.ID, n)...)
	})
	if errors.Is(err, stages.ErrMessageGone) || errors.Is(err, tg.ErrorBadRequest) {
		return nil
	}
	return err
}

// renderPage is page n of view v (the last page when n is past it), on a
// catalog's screen.
func (b *Bot) renderPage(ctx context.Context, w lang.Printer, v memory.View, n int, screen string) (page, error) {
	var s viewSubject
	_ = json.Unmarshal(v.Subject, &s) // stored by sendView
	var lines []string
	var total int
	var title, footer string
	var err error
	switch viewKind(v.Kind) {
	case viewMemories:
		title, footer = s.Label, w.Sprintf("Forget one with /forget <id>.")
		if s.Admin {
			footer = w.Sprintf("Forget one with /memory forget <id>.")
		}
		lines, total, err = b.memoryLines(ctx, w, ryo.Shelf{Scope: s.Scope, ID: s.ID}, n)
	case viewSearch:
		title, footer = w.Sprintf("Memories matching “%s”", s.Query), w.Sprintf("Forget one with /memory forget <id>.")
		lines, total, err = b.searchLines(ctx, w, s.Query, n)
	case viewTags:
		title, footer = w.Sprintf("Tags, most used first"), w.Sprintf("/tags <tag> shows where one is used.")
		lines, total, err = b.tagLines(ctx, w, n)
	case viewTagged:
		title = w.Sprintf("Tagged “%s”, newest first", s.Tag)
		lines, total, err = b.taggedLines(ctx, w, s.Tag, n)
	case viewUsers:
		title, footer = w.Sprintf("👥 People I know, access %s", b.cfg.Access), w.Sprintf("/allow, /ban, /promote or /demote someone by @username or id.")
		lines, total, err = b.userLines(ctx, w, n)
	case viewTools:
		tools, err := b.toolsOfID(ctx, v.Viewer)
		if err != nil {
			return page{}, err
		}
		return b.toolsPage(w, v.ID, n, screen, tools), nil
	case viewModels:
		return b.modelsPage(ctx, w, v, n, screen, s.Admin)
	case viewKnowledge:
		title, footer = w.Sprintf("%s, newest first", s.Label), w.Sprintf("/knowledge show <id> shows one.")
		lines, total, err = b.knowledgeLines(ctx, w, s.ID, n)
	case viewDead:
		title, footer = w.Sprintf("📮 Updates I could not handle, newest first"), w.Sprintf("/deadletter retry <id> or /deadletter retry all runs them again.")
		lines, total, err = b.deadLines(ctx, w, n)
	default:
		return page{}, nil
	}
	if err != nil || total == 0 {
		return page{}, err
	}
	pages := (total + pageSize - 1) / pageSize
	if n >= pages && pages > 0 {
		return b.renderPage(ctx, w, v, pages-1, screen)
	}
	text := fmt.Sprintf("%s (%d)", title, total)
	if pages > 1 {
		text += w.Sprintf(" — page %d of %d", n+1, pages)
	}
	text += ":\n" + strings.Join(lines, "\n")
	if footer != "" {
		text += "\n\n" + footer
	}
	return page{text: text, pages: pages}, nil
}

func (b *Bot) memoryLines(ctx context.Context, w lang.Printer, s ryo.Shelf, n int) ([]string, int, error) {
	list, total, err := b.db.Memories(ctx, s, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, m := range list {
		lines[i] = b.memoryLine(w, m, false)
	}
	return lines, total, nil
}

func (b *Bot) searchLines(ctx context.Context, w lang.Printer, query string, n int) ([]string, int, error) {
	list, err := b.cfg.Recall.Recall(ctx, ryo.EveryShelf(), query, maxRecall)
	if err != nil {
		return nil, 0, err
	}
	var lines []string
	for i := n * pageSize; i < len(list) && i < (n+1)*pageSize; i++ {
		lines = append(lines, b.memoryLine(w, list[i], true))
	}
	return lines, len(list), nil
}

// memoryLine is one memory in a list: its id, when, whose (for admins),
// what, and its tags.
func (b *Bot) memoryLine(w lang.Printer, m ryo.Memory, whose bool) string {
	line := fmt.Sprintf("#%d · %s · ", m.ID, w.Date(m.CreatedAt.In(b.cfg.Location), "2 Jan 2006"))
	if whose {
		if m.Scope == ryo.ScopeGroup {
			line += w.Sprintf("group %d · ", m.Chat)
		} else {
			line += orSomeone(w, m.OwnerName) + fmt.Sprintf(" (%d) · ", m.Owner)
		}
	}
	line += clip(strings.Join(strings.Fields(m.Content), " "), 300)
	if len(m.Tags) > 0 {
		line += " #" + strings.Join(m.Tags, " #")
	}
	return line
}

func (b *Bot) tagLines(ctx context.Context, w lang.Printer, n int) ([]string, int, error) {
	list, total, err := b.db.TagUses(ctx, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, u := range list {
		lines[i] = w.Sprintf("%s · %d · last %s", u.Tag, u.Count, b.clock(w, u.LastSeen))
	}
	return lines, total, nil
}

func (b *Bot) taggedLines(ctx context.Context, w lang.Printer, tag string, n int) ([]string, int, error) {
	list, total, err := b.db.TaggedWith(ctx, tag, n*pageSize, pageSize)
	if err != nil {
		return nil, 0, err
	}
	lines := make([]string, len(list))
	for i, t := range list {
		what := "💬"
		if t.Kind == "memory" {
			what = fmt.Sprintf("🧠 #%d", t.ID)
		}
		who := ""
		if t.Who != "" {
			who = t.Who + ": "
		}
		lines[i] = fmt.Sprintf("%s · %s · %s%s", what, b.clock(w, t.At), who, clip(strings.Join(strings.Fields(t.Text), " "), 200))
	}
	return lines, total, nil
}
