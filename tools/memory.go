package tools

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/toolbus"
)

// Memories is where the memory tools keep memories; *memory.DB is one.
type Memories interface {
	Memory(ctx context.Context, s ryo.Shelf, id int64) (ryo.Memory, bool, error)
	Remember(ctx context.Context, m ryo.Memory) (ryo.Memory, error)
	RecallNear(ctx context.Context, s ryo.Shelf, query string, vec []float32, limit int) ([]ryo.Memory, error)
	Forget(ctx context.Context, s ryo.Shelf, id int64) (ryo.Memory, bool, error)
}

// Embedder turns texts into vectors for recall by meaning; *ollama.Client
// is one, when an embedding model is configured.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Recaller is the one way memories are found: by their words, and by
// their meaning when an embedding model is configured (Embedder not nil).
// The memory tools, the memories shown with each message and the admins'
// search all recall through it.
type Recaller struct {
	Store    Memories
	Embedder Embedder // nil without an embedding model: memories by their words alone
	Log      *slog.Logger
}

// Recall returns the memories on shelf s that best match query, at most
// limit, best first.
func (r Recaller) Recall(ctx context.Context, s ryo.Shelf, query string, limit int) ([]ryo.Memory, error) {
	return r.Store.RecallNear(ctx, s, query, r.Vector(ctx, query), limit)
}

// Vector is text's embedding, or nil when there is no embedding model or
// it fails: memories are then stored and recalled by their words alone,
// and the log says why.
func (r Recaller) Vector(ctx context.Context, text string) []float32 {
	if r.Embedder == nil {
		return nil
	}
	vecs, err := r.Embedder.Embed(ctx, []string{text})
	if err != nil || len(vecs) != 1 {
		r.Log.WarnContext(ctx, "could not embed a memory or a query; using its words alone", "err", err)
		return nil
	}
	return vecs[0]
}

// Memory returns the memory tools: remember, recall and forget. Each works
// on the shelf of the conversation it is called from — in a private chat
// the person's own memories, in a group the group's — which it learns from
// its context (ryo.CallerOf); no argument can name another shelf.
func Memory(r Recaller, clock ryo.Clock) []toolbus.Spec {
	if clock == nil {
		clock = ryo.SystemClock{}
	}
	return []toolbus.Spec{
		{Name: "remember", Effect: toolbus.Mutating, Tags: []string{"memory:remember"}, Category: toolbus.Memory,
			Examples: []toolbus.Example{
				example("Remember that my sister's birthday is on 12 March.", `{"content":"The person's sister's birthday is on 12 March.","tags":["family","birthday"]}`),
				example("I'm in Lisbon this week, keep that in mind.", `{"content":"The person is in Lisbon this week.","expires_in_days":7}`)},
			Description: "Remember a fact for later conversations, in one short sentence; for a passing one, set expires_in_days.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"content":{"type":"string","minLength":1,"maxLength":2000},
				"tags":{"type":"array","items":{"type":"string","minLength":1,"maxLength":64},"maxItems":8},
				"expires_in_days":{"type":"integer","minimum":1,"maximum":3650}},
				"required":["content"],"additionalProperties":false}`),
			Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
				return remember(ctx, r, clock, args)
			})},
		{Name: "recall", Effect: toolbus.ReadOnly, Tags: []string{"memory:recall"}, Category: toolbus.Memory,
			Examples:    []toolbus.Example{example("When is my sister's birthday again?", `{"query":"sister birthday"}`)},
			Description: "Search what you remember from earlier conversations; returns the best matches with their ids.",
			Schema: json.RawMessage(`{"type":"object","properties":{
				"query":{"type":"string","minLength":1,"maxLength":500},
				"limit":{"type":"integer","minimum":1,"maximum":10}},
				"required":["query"],"additionalProperties":false}`),
			Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
				return recall(ctx, r, args)
			})},
		Forget(r),
	}
}

// forgetSchema is the arguments of the forget tools.
const forgetSchema = `{"type":"object","properties":{"memory_id":{"type":"integer","minimum":1}},
	"required":["memory_id"],"additionalProperties":false}`

// Forget returns the forget tool: a memory of the conversation's shelf
// forgotten for good, once the person confirms it.
func Forget(r Recaller) toolbus.Spec {
	return toolbus.Spec{Name: "forget", Effect: toolbus.Destructive, Tags: []string{"memory:forget"}, Category: toolbus.Memory,
		Examples:    []toolbus.Example{example("Forget what you know about my old address.", `{"memory_id":42}`)},
		Description: "Forget a remembered fact for good, by its memory id (from recall); the person confirms it first.",
		Schema:      json.RawMessage(forgetSchema),
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			c, ok := ryo.CallerOf(ctx)
			if !ok {
				return nil, errNoCaller
			}
			return forget(ctx, r.Store, ryo.ShelfOf(c), args)
		}),
		Explain: func(ctx context.Context, args json.RawMessage) string {
			c, ok := ryo.CallerOf(ctx)
			if !ok {
				return ""
			}
			return explainForget(ctx, r.Store, ryo.ShelfOf(c), args)
		},
		Happened: func(ctx context.Context, args json.RawMessage) toolbus.Happening {
			c, ok := ryo.CallerOf(ctx)
			if !ok {
				return toolbus.Unknown
			}
			return forgotten(ctx, r.Store, ryo.ShelfOf(c), args)
		}}
}

// AdminForget returns forget_any, the tool behind an admin's /memory
// forget: a memory of any shelf, by its id, whose prompt says whose it is.
// It is for the bot's commands only, never offered to the model.
func AdminForget(r Recaller) toolbus.Spec {
	return toolbus.Spec{Name: "forget_any", Effect: toolbus.Destructive, Tags: []string{"memory:forget"}, Category: toolbus.Memory,
		Examples:    []toolbus.Example{example("/memory forget 42", `{"memory_id":42}`)},
		Description: "Forget any person's or group's memory for good, by its memory id; for admins, after they confirm.",
		Schema:      json.RawMessage(forgetSchema),
		Tool: toolbus.ToolFunc(func(ctx context.Context, args json.RawMessage) (any, error) {
			return forget(ctx, r.Store, ryo.EveryShelf(), args)
		}),
		Explain: func(ctx context.Context, args json.RawMessage) string {
			return explainForget(ctx, r.Store, ryo.EveryShelf(), args)
		},
		Happened: func(ctx context.Context, args json.RawMessage) toolbus.Happening {
			return forgotten(ctx, r.Store, ryo.EveryShelf(), args)
		}}
}

// errNoCaller is a tool run outside a conversation: a bug, never the model's.
var errNoCaller = errors.New("memory tool called without a caller")

func remember(ctx context.Context, r Recaller, clock ryo.Clock, raw json.RawMessage) (any, error) {
	var args struct {
		Content string   `json:"content"`
		Tags    []string `json:"tags"`
		Days    int      `json:"expires_in_days"` // 0: kept until forgotten
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	c, ok := ryo.CallerOf(ctx)
	if !ok {
		return nil, errNoCaller
	}
	if strings.TrimSpace(args.Content) == "" {
		return nil, toolbus.Errorf("empty", "content is empty: write the fact to remember")
	}
	shelf := ryo.ShelfOf(c)
	var expires time.Time
	if args.Days > 0 {
		expires = clock.Now().AddDate(0, 0, args.Days)
	}
	m, err := r.Store.Remember(ctx, ryo.Memory{Scope: shelf.Scope, Owner: c.Person.ID, Chat: c.Chat.ID, Content: args.Content,
		Tags: normalTags(args.Tags), Source: c.Message, AddedBy: c.Person.ID, Expires: expires,
		Embedding: r.Vector(ctx, args.Content)})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"memory_id": m.ID, "remembered_for": whose(shelf)}
	if !m.Expires.IsZero() {
		out["until"] = m.Expires.Format("2006-01-02")
	}
	return out, nil
}

func recall(ctx context.Context, r Recaller, raw json.RawMessage) (any, error) {
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
	limit := args.Limit
	if limit == 0 {
		limit = 5
	}
	found, err := r.Recall(ctx, ryo.ShelfOf(c), args.Query, limit)
	if err != nil {
		return nil, err
	}
	type item struct {
		ID      int64    `json:"memory_id"`
		Content string   `json:"content"`
		Tags    []string `json:"tags,omitempty"`
		Saved   string   `json:"saved"`
	}
	items := []item{}
	for _, m := range found {
		items = append(items, item{ID: m.ID, Content: m.Content, Tags: m.Tags, Saved: m.CreatedAt.Format("2006-01-02")})
	}
	out := map[string]any{"memories": items}
	if len(items) == 0 {
		out["note"] = "nothing remembered matches; say so rather than guess"
	}
	return out, nil
}

func forget(ctx context.Context, store Memories, s ryo.Shelf, raw json.RawMessage) (any, error) {
	var args struct {
		ID int64 `json:"memory_id"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	m, found, err := store.Forget(ctx, s, args.ID)
	if err != nil {
		return nil, err
	}
	if !found { // another shelf's memory looks the same as none at all
		return nil, toolbus.Errorf("not_found", "there is no memory #%d here; use recall to find the right id", args.ID)
	}
	return map[string]any{"forgotten": m.ID, "content": m.Content}, nil
}

// forgotten tells whether a forget of the memory raw names happened: it
// did when the memory is no longer on the shelf.
func forgotten(ctx context.Context, store Memories, s ryo.Shelf, raw json.RawMessage) toolbus.Happening {
	var args struct {
		ID int64 `json:"memory_id"`
	}
	if decodeArgs(raw, &args) != nil {
		return toolbus.Unknown
	}
	switch _, found, err := store.Memory(ctx, s, args.ID); {
	case err != nil:
		return toolbus.Unknown
	case found:
		return toolbus.NotHappened
	}
	return toolbus.Happened
}

func whose(s ryo.Shelf) string {
	if s.Scope == ryo.ScopeGroup {
		return "this group"
	}
	return "this person"
}

// normalTags are tags as they are stored: lower case, words joined by "-",
// without duplicates.
func normalTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		t = strings.Join(strings.Fields(strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))), "-")
		if t != "" && !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// explainForget shows the memory a forget on shelf s would remove, so
// that the person confirms the memory itself, not a number; forgetting
// on every shelf, it says whose memory it is.
func explainForget(ctx context.Context, store Memories, s ryo.Shelf, raw json.RawMessage) string {
	var args struct {
		ID int64 `json:"memory_id"`
	}
	if decodeArgs(raw, &args) != nil {
		return ""
	}
	m, found, err := store.Memory(ctx, s, args.ID)
	p := lang.FromContext(ctx) // the prompt is shown in the chat's language
	switch {
	case err != nil:
		return ""
	case !found:
		return p.Sprintf("There is no memory #%d here, so this would change nothing.", args.ID)
	case s.Every() && m.Scope == ryo.ScopeUser:
		return p.Sprintf("Forget %s's memory #%d: “%s”", orSomeone(p, m.OwnerName), m.ID, m.Content)
	}
	return p.Sprintf("Forget memory #%d: “%s”", m.ID, m.Content)
}

func orSomeone(p lang.Printer, name string) string {
	if name == "" {
		return p.Sprintf("someone")
	}
	return name
}
