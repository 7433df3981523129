package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

// /model shows everyone which model answers in the chat, and why, and the
// models installed on the model server. Only the bot's admins choose a
// model — for the chat, or as the default of every chat — with the list's
// buttons or as text: a model is the server's to run, and Telegram's
// group administrators are not the bot's. The list is a paged view
// (pages.go) with screens: the list (""), one model's card ("m" and the
// model's key), and the choices, each pressed on a card or the list: "h"
// (here) and "d" (the default) with the model's key, "r" (this chat back
// to the default) and "x" (the default back to RYO_MODEL).

// What people are told about choosing.
const (
	onlyAdminsChoose = "Only an admin of the bot can choose the model. /model alone shows which one answers here."
	cannotList       = "I can't list the installed models just now — the model server did not answer. Please try again in a moment."
	modelUsage       = "/model shows the models. An admin chooses one with /model <name> (this chat), /model default <name> (every chat), /model reset (this chat back to the default) or /model default reset (back to RYO_MODEL)."
)

// modelCommand is /model.
func (b *Bot) modelCommand(p lang.Printer) command {
	return command{name: "model", help: p.Sprintf("which model answers here, and the installed ones (admins choose)"), run: b.modelCmd}
}

func (b *Bot) modelCmd(ctx context.Context, c call) error {
	args := strings.Fields(c.args)
	if len(args) == 0 {
		return b.sendView(ctx, c, viewModels, viewSubject{Admin: b.isAdmin(c.user)}, c.p.Sprintf(cannotList))
	}
	if !b.isAdmin(c.user) {
		return b.reply(ctx, c, c.p.Sprintf(onlyAdminsChoose))
	}
	asDefault := strings.EqualFold(args[0], "default")
	if asDefault {
		args = args[1:]
	}
	if len(args) != 1 {
		return b.reply(ctx, c, c.p.Sprintf(modelUsage))
	}
	var out modelChosen
	var err error
	if strings.EqualFold(args[0], "reset") {
		out.said, err = b.resetModel(ctx, c.p, c.user, c.chat.ID, asDefault)
	} else {
		out, err = b.chooseModel(ctx, c.p, c.user, c.chat.ID, args[0], asDefault)
	}
	if err != nil {
		return err
	}
	if out.warning != "" {
		out.said += "\n\n" + out.warning
	}
	return b.reply(ctx, c, out.said)
}

// modelChosen is what choosing a model came to.
type modelChosen struct {
	said    string // what was done, or why nothing was
	warning string // what the person should know of the model chosen; "" when nothing
	done    bool   // the model was chosen
}

// chooseModel makes the installed model name answer in chat, or in every
// chat that chose none when asDefault, and says so — with a warning when
// it is not trained for tools; or says why it cannot be chosen.
func (b *Bot) chooseModel(ctx context.Context, w lang.Printer, by ryo.User, chat int64, name string, asDefault bool) (modelChosen, error) {
	list, ok := b.installedFor(ctx, chat)
	if !ok {
		return modelChosen{said: w.Sprintf(cannotList)}, nil
	}
	i := indexModel(list, name)
	if i < 0 {
		name = clip(cleanLine(name), 80) // cmd_stats.go: no override turns the sentence around
		return modelChosen{said: w.Sprintf("%s is not installed on the model server (ollama pull %s installs it). /model lists those that are.", name, name)}, nil
	}
	return b.choose(ctx, w, by, chat, list[i], asDefault)
}

// installedFor lists the installed models for a choice in chat; false,
// with a log line, when they cannot be listed.
func (b *Bot) installedFor(ctx context.Context, chat int64) ([]ryo.InstalledModel, bool) {
	if b.cfg.Models == nil {
		return nil, false
	}
	list, err := b.cfg.Models.Installed(ctx)
	if err != nil {
		b.log.WarnContext(ctx, "cannot list the installed models", "chat_id", chat, "err", err)
		return nil, false
	}
	return list, true
}

// choose makes installed model m answer in chat, or as the default; see
// chooseModel.
func (b *Bot) choose(ctx context.Context, w lang.Printer, by ryo.User, chat int64, m ryo.InstalledModel, asDefault bool) (modelChosen, error) {
	var err error
	if problem := unchoosable(w, m); problem != "" {
		return modelChosen{said: problem}, nil
	}
	if asDefault {
		err = b.db.SetDefaultModel(ctx, by.ID, m.Name)
	} else {
		err = b.db.SetChatModel(ctx, chat, by.ID, m.Name)
	}
	if err != nil {
		return modelChosen{}, err
	}
	b.log.InfoContext(ctx, "model chosen", "chat_id", chat, "by", by.ID, "model", m.Name, "default", asDefault)
	out := modelChosen{said: w.Sprintf("✅ %s answers here from now on.", m.Name), done: true}
	if asDefault {
		out.said = w.Sprintf("⭐ %s is the default from now on: it answers in every chat that has not chosen its own.", m.Name)
	}
	if !m.Can(ryo.CanUseTools) {
		out.warning = noToolsWarning(w, m.Name)
	}
	return out, nil
}

// resetModel makes chat follow the default again, or the default
// RYO_MODEL again when asDefault.
func (b *Bot) resetModel(ctx context.Context, w lang.Printer, by ryo.User, chat int64, asDefault bool) (string, error) {
	if asDefault {
		if err := b.db.SetDefaultModel(ctx, by.ID, ""); err != nil {
			return "", err
		}
		b.log.InfoContext(ctx, "default model back to RYO_MODEL", "chat_id", chat, "by", by.ID, "model", b.model)
		return w.Sprintf("↩ The default is RYO_MODEL's again: %s.", b.model), nil
	}
	if err := b.db.SetChatModel(ctx, chat, by.ID, ""); err != nil {
		return "", err
	}
	b.log.InfoContext(ctx, "chat model back to the default", "chat_id", chat, "by", by.ID)
	return w.Sprintf("↩ The default model answers here again."), nil
}

// noToolsWarning says what choosing a model not trained for tools means:
// the agent asks every model for a JSON envelope, not for Ollama's native
// tool calls, so the tools still work — less reliably. Short enough for a
// press's alert (200 characters).
func noToolsWarning(w lang.Printer, name string) string {
	return w.Sprintf("⚠️ %s is not trained for tools. I ask every model for a JSON answer, not native tool calls, so tools still work — but it may pick them less reliably.", clip(name, 40))
}

// unchoosable says why model m cannot answer a turn, or "".
func unchoosable(w lang.Printer, m ryo.InstalledModel) string {
	switch {
	case m.Capabilities == nil:
		return w.Sprintf("I can't tell what %s can do just now — the model server did not say. Please try again in a moment.", m.Name)
	case m.Can(ryo.CanEmbed) && !m.Can(ryo.CanComplete):
		return w.Sprintf("%s is an embedding model: it turns text into vectors and cannot answer.", m.Name)
	case !m.Can(ryo.CanComplete):
		return w.Sprintf("%s cannot answer: the model server does not list completion among what it can do.", m.Name)
	}
	return ""
}

func indexModel(list []ryo.InstalledModel, name string) int {
	for i, m := range list {
		if ryo.SameModel(m.Name, name) {
			return i
		}
	}
	return -1
}

// modelState is which model answers in a chat, and why.
type modelState struct {
	choice    memory.ModelChoice
	list      []ryo.InstalledModel
	listed    bool   // the server gave the list; else every model counts as installed
	answering string // the model that answers here
	def       string // the default that answers where none is chosen
}

// installed reports whether the model named is installed, as far as
// known.
func (s modelState) installed(name string) bool { return !s.listed || indexModel(s.list, name) >= 0 }

// modelStateOf is which model answers in chat, with the installed list.
func (b *Bot) modelStateOf(ctx context.Context, chat int64) (modelState, error) {
	choice, err := b.db.ModelChoice(ctx, chat)
	if err != nil {
		return modelState{}, err
	}
	s := modelState{choice: choice, def: b.model}
	if b.cfg.Models != nil {
		s.list, err = b.cfg.Models.Installed(ctx)
		if err != nil {
			b.log.WarnContext(ctx, "cannot list the installed models", "chat_id", chat, "err", err)
		}
		s.listed = err == nil
	}
	if choice.Default != "" && s.installed(choice.Default) {
		s.def = choice.Default
	}
	s.answering = s.def
	if choice.Chat != "" && s.installed(choice.Chat) {
		s.answering = choice.Chat
	}
	return s, nil
}

// header says which model answers here and why, and what was chosen but
// is gone.
func (s modelState) header(w lang.Printer, env string) string {
	var lines []string
	switch {
	case s.choice.Chat != "" && s.installed(s.choice.Chat):
		lines = append(lines, w.Sprintf("🤖 Answering here: %s — chosen for this chat by an admin.", s.answering))
	case s.def != env:
		lines = append(lines, w.Sprintf("🤖 Answering here: %s — the default, chosen by an admin.", s.answering))
	default:
		lines = append(lines, w.Sprintf("🤖 Answering here: %s — the default (RYO_MODEL).", s.answering))
	}
	if c := s.choice.Chat; c != "" && !s.installed(c) {
		lines = append(lines, w.Sprintf("⚠️ %s was chosen for this chat but is no longer installed, so the default answers instead.", c))
	}
	if d := s.choice.Default; d != "" && !s.installed(d) {
		lines = append(lines, w.Sprintf("⚠️ %s was chosen as the default but is no longer installed, so RYO_MODEL (%s) is the default instead.", d, env))
	}
	return strings.Join(lines, "\n")
}

// modelLine is one installed model in the list.
func (s modelState) modelLine(w lang.Printer, m ryo.InstalledModel) string {
	parts := []string{w.Sprintf("%.1f GB", float64(m.Size)/1e9)}
	for _, p := range []string{m.Family, m.ParameterSize} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	parts = append(parts, badges(w, m)...)
	line := "• " + m.Name + " — " + strings.Join(parts, " · ")
	if ryo.SameModel(m.Name, s.answering) {
		line += w.Sprintf(" ← answers here")
	}
	if ryo.SameModel(m.Name, s.def) {
		line += w.Sprintf(" ⭐ default")
	}
	return line
}

// badges are what m can do, in a word each.
func badges(w lang.Printer, m ryo.InstalledModel) []string {
	if m.Capabilities == nil {
		return []string{w.Sprintf("❔ capabilities unknown")}
	}
	var out []string
	for _, b := range []struct {
		c    ryo.Capability
		text string
	}{{ryo.CanUseTools, w.Sprintf("🛠 tools")}, {ryo.CanSee, w.Sprintf("👁 vision")}, {ryo.CanThink, w.Sprintf("💭 thinking")}, {ryo.CanEmbed, w.Sprintf("🔢 embedding")}} {
		if m.Can(b.c) {
			out = append(out, b.text)
		}
	}
	return out
}

// modelsPage is page n of the models view on a screen: the list, or one
// model's card (for admins).
func (b *Bot) modelsPage(ctx context.Context, w lang.Printer, v memory.View, n int, screen string, admin bool) (page, error) {
	s, err := b.modelStateOf(ctx, v.Chat)
	if err != nil {
		return page{}, err
	}
	at := func(n int, screen string) string { return pagePrefix + v.ID + ":" + strconv.Itoa(n) + ":" + screen }
	if admin && strings.HasPrefix(screen, "m") {
		if i := indexKey(s.list, screen[1:]); i >= 0 {
			return s.card(w, s.list[i], at), nil
		}
	}
	text := s.header(w, b.model)
	if !s.listed {
		return page{text: text + "\n\n" + w.Sprintf(cannotList), pages: 1}, nil
	}
	if len(s.list) == 0 {
		return page{text: text + "\n\n" + w.Sprintf("No model is installed on the model server (ollama pull <name> installs one)."), pages: 1}, nil
	}
	pages := (len(s.list) + pageSize - 1) / pageSize
	n = min(max(n, 0), pages-1)
	shown := s.list[n*pageSize : min(len(s.list), (n+1)*pageSize)]
	text += "\n\n" + w.Sprintf("Installed models (%d)", len(s.list))
	if pages > 1 {
		text += w.Sprintf(" — page %d of %d", n+1, pages)
	}
	text += ":"
	for _, m := range shown {
		text += "\n" + s.modelLine(w, m)
	}
	if !admin {
		return page{text: text, pages: pages}, nil
	}
	text += "\n\n" + w.Sprintf("Pick a model to choose it for this chat or as the default.")
	var buttons []delivery.Button
	for i, m := range shown {
		if unchoosable(w, m) == "" {
			buttons = append(buttons, delivery.Button{Text: m.Name, Data: at(n, "m"+keyOf(m.Name)), Below: i%2 == 0})
		}
	}
	for i, p := range pageButtons(w, v.ID, n, pages) {
		p.Below = i == 0
		buttons = append(buttons, p)
	}
	if s.choice.Chat != "" {
		buttons = append(buttons, delivery.Button{Text: w.Sprintf("↩ This chat: the default"), Data: at(n, "r"), Below: true})
	}
	if s.choice.Default != "" {
		buttons = append(buttons, delivery.Button{Text: w.Sprintf("↩ Default: RYO_MODEL"), Data: at(n, "x"), Below: true})
	}
	if buttons == nil {
		buttons = []delivery.Button{} // a view with screens, though nothing can be pressed now
	}
	return page{text: text, pages: pages, buttons: buttons}, nil
}

// card is one model, with what choosing it does.
func (s modelState) card(w lang.Printer, m ryo.InstalledModel, at func(int, string) string) page {
	lines := []string{"🤖 " + m.Name, strings.TrimPrefix(s.modelLine(w, m), "• "+m.Name+" — ")}
	if m.Quantization != "" {
		lines = append(lines, w.Sprintf("Quantized %s.", m.Quantization))
	}
	if !m.Can(ryo.CanUseTools) {
		lines = append(lines, "", noToolsWarning(w, m.Name))
	}
	key := keyOf(m.Name)
	return page{text: strings.Join(lines, "\n"), pages: 1, buttons: []delivery.Button{
		{Text: w.Sprintf("✅ Answer here"), Data: at(0, "h"+key)},
		{Text: w.Sprintf("⭐ Make default"), Data: at(0, "d"+key)},
		{Text: w.Sprintf("⬅ All models"), Data: at(0, ""), Below: true},
	}}
}

func indexKey(list []ryo.InstalledModel, key string) int {
	for i, m := range list {
		if keyOf(m.Name) == key {
			return i
		}
	}
	return -1
}

// onModelScreen is a press on a models view's screen: a model's card, or
// a choice. Only an admin of the bot, now, may press them.
func (b *Bot) onModelScreen(ctx context.Context, j *job, q *models.CallbackQuery, w lang.Printer, v memory.View, n int, screen string, admin bool) error {
	if !admin {
		b.log.InfoContext(ctx, "a model choice pressed by someone who is not an admin", "update_id", j.id, "user_id", q.From.ID, "chat_id", v.Chat)
		return b.answerPress(ctx, j.w, q, w.Sprintf(onlyAdminsChoose), true)
	}
	presser := ryo.User{ID: q.From.ID}
	var out modelChosen
	var err error
	switch kind, key := screen[0], screen[1:]; {
	case kind == 'm' && len(key) == 8:
		return b.showPage(ctx, j, q, w, v, n, screen, "")
	case (kind == 'h' || kind == 'd') && len(key) == 8:
		out, err = b.chooseByKey(ctx, w, presser, v.Chat, key, kind == 'd')
	case screen == "r" || screen == "x":
		out.said, err = b.resetModel(ctx, w, presser, v.Chat, screen == "x")
		out.done = true
	default:
		return b.answerPress(ctx, j.w, q, w.Sprintf(staleButton), false)
	}
	switch {
	case err != nil:
		return err
	case !out.done:
		return b.answerPress(ctx, j.w, q, clip(out.said, 200), true)
	case out.warning != "": // the model's card, which says it, stays shown
		return b.showPage(ctx, j, q, w, v, n, "m"+screen[1:], clip(out.said, 200))
	}
	return b.showPage(ctx, j, q, w, v, n, "", clip(out.said, 200))
}

// chooseByKey chooses the installed model whose key is key.
func (b *Bot) chooseByKey(ctx context.Context, w lang.Printer, by ryo.User, chat int64, key string, asDefault bool) (modelChosen, error) {
	list, ok := b.installedFor(ctx, chat)
	if !ok {
		return modelChosen{said: w.Sprintf(cannotList)}, nil
	}
	i := indexKey(list, key)
	if i < 0 {
		return modelChosen{said: w.Sprintf("That model is no longer installed — send /model for the list as it is now.")}, nil
	}
	return b.choose(ctx, w, by, chat, list[i], asDefault) // the list just read: not asked for again
}
