package bot

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/toolbus"
)

// The catalog (/tools) is a paged view with screens: its kinds of tools
// (""), the tools of one kind ("c" and the kind's key), and one tool's card
// ("t" and the tool's key). A key is a short hash of the name, so that a
// button's data stays within Telegram's 64 bytes whatever the name; a key
// that names nothing now (a tool gone since) shows the kinds again.

// catalogOrder is the order the built-in kinds are shown in; others follow
// by name.
var catalogOrder = []toolbus.Category{toolbus.MathFinance, toolbus.Charts, toolbus.Images, toolbus.Web, toolbus.TimeUnits, toolbus.Memory, toolbus.Knowledge}

// keyOf is the short key of a name on a catalog's buttons.
func keyOf(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

// shelves are the model's tools by kind, the kinds in catalog order.
func (b *Bot) shelves() ([]toolbus.Category, map[toolbus.Category][]toolbus.Spec) {
	by := map[toolbus.Category][]toolbus.Spec{}
	for _, s := range b.cfg.Tools.Specs() {
		by[s.Category] = append(by[s.Category], s)
	}
	var kinds []toolbus.Category
	for k := range by {
		kinds = append(kinds, k)
	}
	rank := func(k toolbus.Category) int {
		if i := slices.Index(catalogOrder, k); i >= 0 {
			return i
		}
		return len(catalogOrder)
	}
	slices.SortFunc(kinds, func(a, b toolbus.Category) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
	return kinds, by
}

// toolsPage is page n of the catalog's screen, for a viewer who may use
// tools (see toolsOf).
func (b *Bot) toolsPage(w lang.Printer, view string, n int, screen string, tools []string) page {
	kinds, by := b.shelves()
	if len(kinds) == 0 {
		return page{}
	}
	at := func(n int, screen string) string { return pagePrefix + view + ":" + strconv.Itoa(n) + ":" + screen }
	key := screen[min(len(screen), 1):]
	switch {
	case strings.HasPrefix(screen, "c"):
		for _, k := range kinds {
			if keyOf(string(k)) == key {
				return kindPage(w, k, by[k], n, at, tools)
			}
		}
	case strings.HasPrefix(screen, "t"), strings.HasPrefix(screen, "u"): // u: after ⚡ Use next
		for _, k := range kinds {
			for _, s := range by[k] {
				if keyOf(s.Name) == key {
					p := toolCard(w, s, at, mayUseTool(tools, s.Name))
					if screen[0] == 'u' && mayUseTool(tools, s.Name) {
						p.text += "\n\n" + chosen(w, s.Name)
					}
					return p
				}
			}
		}
	}
	text := w.Sprintf("🧰 What I can do — my tools, by kind. Ask in your own words and I pick the tool; pick a kind to see what each one does.")
	var buttons []delivery.Button
	for _, k := range kinds {
		buttons = append(buttons, delivery.Button{Text: fmt.Sprintf("%s · %d", w.Message(string(k)), len(by[k])), Data: at(0, "c"+keyOf(string(k))), Below: true})
	}
	return page{text: text, pages: 1, buttons: buttons}
}

// kindPage is page n of the tools of kind k: each with its line, a button
// to its card, ◀ ▶ when they are more than a page, and the way back.
func kindPage(w lang.Printer, k toolbus.Category, specs []toolbus.Spec, n int, at func(int, string) string, tools []string) page {
	pages := (len(specs) + pageSize - 1) / pageSize
	n = min(max(n, 0), pages-1)
	screen := "c" + keyOf(string(k))
	shown := specs[n*pageSize : min(len(specs), (n+1)*pageSize)]
	lines := []string{w.Sprintf("🧰 %s — %d tools", w.Message(string(k)), len(specs))}
	if pages > 1 {
		lines[0] += w.Sprintf(", page %d of %d", n+1, pages)
	}
	var buttons []delivery.Button
	for i, s := range shown {
		line := "• " + s.Name + " — " + firstSentence(s.Description)
		if !mayUseTool(tools, s.Name) {
			line += w.Sprintf(" 🔒 not in your tier")
		}
		lines = append(lines, line)
		buttons = append(buttons, delivery.Button{Text: s.Name, Data: at(0, "t"+keyOf(s.Name)), Below: i%2 == 0})
	}
	if n > 0 {
		buttons = append(buttons, delivery.Button{Text: w.Sprintf("◀ Back"), Data: at(n-1, screen), Below: true})
	}
	if n < pages-1 {
		buttons = append(buttons, delivery.Button{Text: w.Sprintf("Next ▶"), Data: at(n+1, screen), Below: n == 0})
	}
	buttons = append(buttons, delivery.Button{Text: w.Sprintf("⬅ All kinds"), Data: at(0, ""), Below: true})
	return page{text: strings.Join(lines, "\n"), pages: pages, buttons: buttons}
}

// toolNamed finds the model's tool whose key is key.
func (b *Bot) toolNamed(key string) (toolbus.Spec, bool) {
	if b.cfg.Tools == nil {
		return toolbus.Spec{}, false
	}
	for _, s := range b.cfg.Tools.Specs() {
		if keyOf(s.Name) == key {
			return s, true
		}
	}
	return toolbus.Spec{}, false
}

// useFromCatalog is ⚡ Use next on a tool's card: the presser's next
// message in the card's chat (and topic) goes to that tool.
func (b *Bot) useFromCatalog(ctx context.Context, j *job, q *models.CallbackQuery, w lang.Printer, v memory.View, screen string) error {
	s, ok := b.toolNamed(screen[1:])
	if !ok {
		return b.answerPress(ctx, j.w, q, w.Sprintf(staleButton), false)
	}
	_, problem, err := b.forceTool(ctx, w, ryo.User{ID: q.From.ID}, placeOf(q.Message.Message), s.Name)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.answerPress(ctx, j.w, q, problem, true)
	}
	return b.showPage(ctx, j, q, w, v, 0, screen, w.Sprintf("⚡ %s takes your next message here.", s.Name))
}

// toolCard is one tool: what it does, its arguments in words, an example,
// and whether it waits for a yes; with ⚡ Use next when the viewer may use
// it.
func toolCard(w lang.Printer, s toolbus.Spec, at func(int, string) string, may bool) page {
	lines := []string{fmt.Sprintf("🔧 %s — %s", s.Name, w.Message(string(s.Category))), s.Description}
	if args := argumentsInWords(w, s.Schema); len(args) > 0 {
		lines = append(lines, "", w.Sprintf("What it needs:"))
		lines = append(lines, args...)
	}
	for _, e := range s.Examples {
		lines = append(lines, "", w.Sprintf("For example: “%s”\n→ %s", e.Question, exampleInWords(w, e.Arguments)))
	}
	switch s.Effect {
	case toolbus.ReadOnly:
		lines = append(lines, "", w.Sprintf("It changes nothing."))
	case toolbus.Mutating:
		lines = append(lines, "", w.Sprintf("It changes something that can be changed back."))
	default:
		lines = append(lines, "", w.Sprintf("It changes something for good: it waits for your ✅ first."))
	}
	back := delivery.Button{Text: "⬅ " + w.Message(string(s.Category)), Data: at(0, "c"+keyOf(string(s.Category)))}
	if !may {
		lines = append(lines, "", w.Sprintf("🔒 It is not among the tools you may use."))
		return page{text: strings.Join(lines, "\n"), pages: 1, buttons: []delivery.Button{back}}
	}
	use := delivery.Button{Text: w.Sprintf("⚡ Use next"), Data: at(0, "u"+keyOf(s.Name))}
	return page{text: strings.Join(lines, "\n"), pages: 1, buttons: []delivery.Button{use, back}}
}

// firstSentence is d up to its first full stop, at most 90 characters.
func firstSentence(d string) string {
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	if r := []rune(d); len(r) > 90 {
		d = string(r[:89]) + "…"
	}
	return d
}

// property is what a tool's schema says of one argument.
type property struct {
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Enum        []any    `json:"enum"`
	Minimum     *float64 `json:"minimum"`
	Maximum     *float64 `json:"maximum"`
	MaxLength   *int     `json:"maxLength"`
	MaxItems    *int     `json:"maxItems"`
	Default     any      `json:"default"`
	Items       *struct {
		Type string `json:"type"`
	} `json:"items"`
}

// argumentsInWords is a line for each argument of a tool's schema, the
// required ones first: its name, what it is, its bounds, what it is for.
func argumentsInWords(w lang.Printer, raw json.RawMessage) []string {
	var s struct {
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	need := func(n string) int {
		if slices.Contains(s.Required, n) {
			return 0
		}
		return 1
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(need(a), need(b)), cmp.Compare(a, b)) })
	var lines []string
	for _, name := range names {
		p := s.Properties[name]
		facts := []string{typeInWords(w, p)}
		if need(name) == 1 {
			facts = append(facts, w.Sprintf("optional"))
		}
		facts = append(facts, boundsInWords(w, p)...)
		line := fmt.Sprintf("• %s (%s)", name, strings.Join(facts, ", "))
		if p.Description != "" {
			line += ": " + p.Description
		}
		lines = append(lines, line)
	}
	return lines
}

func typeInWords(w lang.Printer, p property) string {
	words := map[string]string{"string": w.Sprintf("text"), "number": w.Sprintf("a number"), "integer": w.Sprintf("a whole number"),
		"boolean": w.Sprintf("yes or no"), "object": w.Sprintf("a group of fields")}
	if p.Type == "array" {
		items := map[string]string{"string": w.Sprintf("a list of texts"), "number": w.Sprintf("a list of numbers"),
			"integer": w.Sprintf("a list of whole numbers"), "boolean": w.Sprintf("a list of yes-or-no answers"), "object": w.Sprintf("a list of groups of fields")}
		if p.Items != nil && items[p.Items.Type] != "" {
			return items[p.Items.Type]
		}
		return w.Sprintf("a list")
	}
	return cmp.Or(words[p.Type], w.Sprintf("anything"))
}

func boundsInWords(w lang.Printer, p property) []string {
	var out []string
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		out = append(out, w.Sprintf("from %s to %s", num(*p.Minimum), num(*p.Maximum)))
	case p.Minimum != nil:
		out = append(out, w.Sprintf("at least %s", num(*p.Minimum)))
	case p.Maximum != nil:
		out = append(out, w.Sprintf("at most %s", num(*p.Maximum)))
	}
	if p.MaxLength != nil {
		out = append(out, w.Sprintf("up to %d characters", *p.MaxLength))
	}
	if p.MaxItems != nil {
		out = append(out, w.Sprintf("up to %d", *p.MaxItems))
	}
	if len(p.Enum) > 0 {
		var vals []string
		for _, v := range p.Enum {
			vals = append(vals, fmt.Sprint(v))
		}
		out = append(out, w.Sprintf("one of %s", strings.Join(vals, ", ")))
	}
	if p.Default != nil {
		out = append(out, w.Sprintf("%v when left out", p.Default))
	}
	return out
}

// exampleInWords is an example's arguments as "name: value; …", in the
// order they were written.
func exampleInWords(w lang.Printer, raw json.RawMessage) string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var parts []string
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return string(raw)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return string(raw)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return string(raw)
		}
		val, _ := json.Marshal(v)
		if s, ok := v.(string); ok {
			val = []byte(s)
		}
		parts = append(parts, fmt.Sprintf("%v: %s", k, val))
	}
	if len(parts) == 0 {
		return w.Sprintf("nothing more")
	}
	return strings.Join(parts, "; ")
}
