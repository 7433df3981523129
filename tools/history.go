package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// History is the stored conversation history_search looks through;
// *memory.DB is one.
type History interface {
	SearchHistory(ctx context.Context, p ryo.Place, query string, skip int64, limit int) ([]ryo.Hit, error)
}

// maxHits is the most messages one history search returns.
const maxHits = 10

// HistorySearch returns history_search: the conversation it is called
// from — the chat, or the forum topic inside it, which it learns from its
// context (ryo.CallerOf) — searched by words; no argument can name another
// chat or topic.
func HistorySearch(h History) toolbus.Spec {
	s := readOnly("history_search",
		"Search this chat's earlier messages and your answers by words; returns the best matches with date, who wrote them, excerpt and link.",
		toolbus.Memory, `{"type":"object","properties":{
			"query":{"type":"string","minLength":1,"maxLength":200,"description":"the words to look for, in any language"},
			"limit":{"type":"integer","minimum":1,"maximum":10,"description":"how many messages at most; 5 when left out"}},
			"required":["query"],"additionalProperties":false}`,
		func(ctx context.Context, args json.RawMessage) (any, error) {
			return searchHistory(ctx, h, args)
		},
		example("What did we decide about the deploy date last month?", `{"query":"deploy date"}`),
		example("Find where Anna posted the wifi password.", `{"query":"wifi password","limit":3}`))
	s.Doing = "🔎 searching this chat's past"
	return s
}

// hit is one found message as the model is shown it. From says whose it
// is — "you" for the bot's own answers, "a person" for everyone else's —
// which no name can change: a person may call themselves "ryo".
type hit struct {
	Date    string `json:"date"`
	From    string `json:"from"`
	Author  string `json:"author"`
	Excerpt string `json:"excerpt"`
	Link    string `json:"link"`
}

func searchHistory(ctx context.Context, h History, raw json.RawMessage) (any, error) {
	var args struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	c, ok := ryo.CallerOf(ctx)
	if !ok {
		return nil, errNoCaller
	}
	if strings.TrimSpace(args.Query) == "" || utf8.RuneCountInString(args.Query) > 200 {
		return nil, toolbus.Errorf("bad_query", "query must be 1 to 200 characters of words to look for")
	}
	limit := args.Limit
	if limit <= 0 || limit > maxHits {
		limit = 5
	}
	found, err := h.SearchHistory(ctx, c.Place, args.Query, c.Message, limit)
	if err != nil {
		return nil, err
	}
	hits := []hit{}
	for _, f := range found {
		m := f.Message
		from := "a person"
		if m.Kind == ryo.KindAssistant {
			from = "you"
		}
		hits = append(hits, hit{Date: m.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), From: from, Author: author(m),
			Excerpt: f.Excerpt, Link: MessageLink(c.Chat, m.Place, m.TelegramID)})
	}
	out := map[string]any{"messages": hits}
	if len(hits) == 0 {
		out["note"] = "no earlier message here matches; say so rather than guess"
	}
	return out, nil
}

// author is who wrote m, as the model is shown it: a person's name on one
// line, without invisible characters, at most maxAuthor characters.
func author(m ryo.Message) string {
	switch {
	case m.Kind == ryo.KindAssistant:
		return "ryo"
	case m.Sender == nil:
		return "someone"
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r):
			return -1
		case unicode.IsControl(r), unicode.IsSpace(r):
			return ' '
		}
		return r
	}, m.Sender.Name())
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > maxAuthor {
		name = string(r[:maxAuthor-1]) + "…"
	}
	if name == "" {
		return "someone"
	}
	return name
}

// maxAuthor bounds a name; Telegram allows 64 characters for a first name
// and as many for a last name.
const maxAuthor = 80

// supergroupBase is what Telegram adds to a supergroup's own id, negated,
// to make its chat id: -100 followed by the id.
const supergroupBase = -1_000_000_000_000

// MessageLink is the t.me link to Telegram message id at place p of chat
// c, or "no link" where Telegram has none: in private chats and basic
// groups, and for a message without a Telegram id.
func MessageLink(c ryo.Chat, p ryo.Place, id int) string {
	if c.Type != ryo.ChatSupergroup || c.ID > supergroupBase || id <= 0 {
		return "no link"
	}
	internal := supergroupBase - c.ID
	if p.Thread != 0 {
		return fmt.Sprintf("https://t.me/c/%d/%d/%d", internal, p.Thread, id)
	}
	return fmt.Sprintf("https://t.me/c/%d/%d", internal, id)
}
