package bot

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/render"
	"github.com/ryo-bot/ryo/stages"
)

// The /settings message and its screens (see cmd_settings.go).

// settingsPage is a chat's settings on a screen, in viewer's words: with
// the buttons of one who may change them.
func (b *Bot) settingsPage(ctx context.Context, v memory.View, screen string, viewer ryo.User, may bool) (page, error) {
	s, err := b.db.ChatSettings(ctx, v.Chat)
	if err != nil {
		return page{}, err
	}
	p := b.words(ctx, v.Chat, viewer)
	at := func(screen string) string { return pagePrefix + v.ID + ":0:" + screen }
	group := v.Chat < 0
	back := delivery.Button{Text: p.Sprintf("⬅ Back"), Data: at(""), Below: true}
	switch screen {
	case "p":
		text := p.Sprintf("🎭 Persona: none.")
		if s.Persona != "" {
			text = p.Sprintf("🎭 Persona:") + "\n" + s.Persona
		}
		text += "\n\n" + p.Sprintf("Choose one below, or write your own with /settings persona <text> (up to 1,000 characters): how I come across here. It cannot change how I answer.")
		var buttons []delivery.Button
		for i, r := range readyPersonas(p) {
			buttons = append(buttons, delivery.Button{Text: marked(r.name, isReadyPersona(p, i, s.Persona)), Data: at("P" + strconv.Itoa(i)), Below: i%2 == 0})
		}
		if s.Persona != "" {
			buttons = append(buttons, delivery.Button{Text: p.Sprintf("↩ No persona"), Data: at("P-"), Below: true})
		}
		return page{text: text, pages: 1, buttons: append(buttons, back)}, nil
	case "t":
		var buttons []delivery.Button
		for _, t := range temperatures {
			buttons = append(buttons, delivery.Button{Text: marked(t, s.Temperature != nil && t == formatTemp(*s.Temperature)), Data: at("T" + t)})
		}
		buttons = append(buttons, delivery.Button{Text: marked(p.Sprintf("The model's own"), s.Temperature == nil), Data: at("T-"), Below: true}, back)
		return page{text: p.Sprintf("🌡 Temperature: lower is more focused and repeatable, higher more varied. Any value from 0 to 2: /settings temperature 0.4"), pages: 1, buttons: buttons}, nil
	case "l":
		var buttons []delivery.Button
		for _, l := range lang.Languages() {
			buttons = append(buttons, delivery.Button{Text: marked(l.Name, s.Language == l.Tag), Data: at("L" + l.Tag)})
		}
		buttons = append(buttons, delivery.Button{Text: marked(p.Sprintf("Automatic"), s.Language == ""), Data: at("L-"), Below: true}, back)
		return page{text: p.Sprintf("🌐 The language of my own messages here. Automatic: each person's Telegram language. How the model answers does not change: it answers in the language it is spoken to."), pages: 1, buttons: buttons}, nil
	case "m":
		if group {
			mode := cmp.Or(s.AnswerMode, modeMention)
			var buttons []delivery.Button
			for _, m := range []string{modeMention, modeEvery, modeOff} {
				buttons = append(buttons, delivery.Button{Text: marked(modeName(p, m), mode == m), Data: at("M" + m), Below: true})
			}
			return page{text: p.Sprintf("💬 Which messages I answer here. Commands always work.") + "\n" + p.Sprintf(privacyNote),
				pages: 1, buttons: append(buttons, back)}, nil
		}
	}
	return b.settingsMain(p, s, group, may, at), nil
}

// settingsMain is the settings' first screen.
func (b *Bot) settingsMain(p lang.Printer, s memory.ChatSettings, group, may bool, at func(string) string) page {
	lines := []string{p.Sprintf("⚙️ Settings of this chat")}
	persona := p.Sprintf("none")
	if s.Persona != "" {
		persona = "“" + clip(strings.Join(strings.Fields(s.Persona), " "), 200) + "”"
	}
	lines = append(lines, p.Sprintf("🎭 Persona: %s", persona))
	temp := p.Sprintf("the model's own")
	if s.Temperature != nil {
		temp = formatTemp(*s.Temperature)
	}
	lines = append(lines, p.Sprintf("🌡 Temperature: %s", temp))
	language := p.Sprintf("automatic (each person's own)")
	if s.Language != "" {
		language = languageName(s.Language)
	}
	lines = append(lines, p.Sprintf("🌐 My language: %s", language))
	if group {
		lines = append(lines, p.Sprintf("💬 I answer: %s", modeName(p, cmp.Or(s.AnswerMode, modeMention))))
	}
	if !may {
		lines = append(lines, "", p.Sprintf(onlySetters))
		return page{text: strings.Join(lines, "\n"), pages: 1}
	}
	lines = append(lines, "", p.Sprintf("Press one to change it; a change holds from the next message."))
	buttons := []delivery.Button{
		{Text: p.Sprintf("🎭 Persona"), Data: at("p")},
		{Text: p.Sprintf("🌡 Temperature"), Data: at("t")},
		{Text: p.Sprintf("🌐 Language"), Data: at("l"), Below: true},
	}
	if group {
		buttons = append(buttons, delivery.Button{Text: p.Sprintf("💬 Answer mode"), Data: at("m")})
	}
	return page{text: strings.Join(lines, "\n"), pages: 1, buttons: buttons}
}

func marked(text string, chosen bool) string {
	if chosen {
		return "✓ " + text
	}
	return text
}

func formatTemp(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

// onSettingsScreen is a press on a settings view by one who may change
// the settings (onPage has judged it): a screen, or a choice — one of the
// fixed ones, else the press changes nothing.
func (b *Bot) onSettingsScreen(ctx context.Context, j *job, q *models.CallbackQuery, v memory.View, screen string) error {
	presser := pressedBy(q)
	p := b.words(ctx, v.Chat, presser)
	var said string
	var err error
	switch kind, value := firstByte(screen), screenValue(screen); {
	case screen == "" || screen == "p" || screen == "t" || screen == "l" || screen == "m" && v.Chat < 0:
		return b.showSettings(ctx, j, q, v, screen, presser, "")
	case screen == "P-":
		said, err = b.setPersona(ctx, presser, v.Chat, p, "")
	case kind == 'P' && readyPersonaText(p, value) != "":
		said, err = b.setPersona(ctx, presser, v.Chat, p, readyPersonaText(p, value))
	case kind == 'T' && (value == "-" || slices.Contains(temperatures, value)):
		said, err = b.setTemperature(ctx, presser, v.Chat, p, strings.TrimPrefix(value, "-"))
	case kind == 'L' && (value == "-" || slices.ContainsFunc(lang.Languages(), func(l lang.Language) bool { return l.Tag == value })):
		said, err = b.setLanguage(ctx, presser, v.Chat, p, strings.TrimPrefix(value, "-"))
	case kind == 'M' && v.Chat < 0 && modeName(p, value) != "":
		said, err = b.setMode(ctx, presser, v.Chat, p, value)
	default:
		b.log.InfoContext(ctx, "a settings button with data not its own", "update_id", j.id, "user_id", q.From.ID, "chat_id", v.Chat)
		return b.answerPress(ctx, j.w, q, p.Sprintf(staleButton), false)
	}
	if err != nil {
		return err
	}
	return b.showSettings(ctx, j, q, v, "", presser, clip(said, 200))
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

func screenValue(s string) string {
	if s == "" {
		return ""
	}
	return s[1:]
}

// showSettings shows the settings on screen in the message pressed,
// answering the press with toast.
func (b *Bot) showSettings(ctx context.Context, j *job, q *models.CallbackQuery, v memory.View, screen string, presser ryo.User, toast string) error {
	pg, err := b.settingsPage(ctx, v, screen, presser, true)
	if err != nil {
		return err
	}
	if err := b.answerPress(ctx, j.w, q, toast, false); err != nil {
		return err
	}
	err = j.w.idle(func() error {
		return b.tg.EditButtons(ctx, placeOf(q.Message.Message), q.Message.Message.ID,
			render.Part{Plain: render.Text(pg.text, render.MaxUnits).Plain}, pg.buttons...)
	})
	if errors.Is(err, stages.ErrMessageGone) || errors.Is(err, tg.ErrorBadRequest) {
		return nil
	}
	return err
}

// readyPersona is a persona ready to choose: a button's name, and the
// text the model is shown.
type readyPersona struct{ name, text string }

// readyPersonas are the personas the persona screen offers as buttons, in
// the words of p: a chat is set up without typing one. Their order is
// their buttons' data, so one is only ever added at the end.
func readyPersonas(p lang.Printer) []readyPersona {
	return []readyPersona{
		{p.Sprintf("🎯 Brief"), p.Sprintf("Brief and to the point: the answer first, in as few words as it takes, no small talk.")},
		{p.Sprintf("🧑‍🏫 Patient teacher"), p.Sprintf("A patient teacher: explains step by step with a small example, checks the person follows, never talks down.")},
		{p.Sprintf("😊 Warm and casual"), p.Sprintf("Warm and casual, like a friendly colleague: plain words, a light touch of humour, encouraging.")},
		{p.Sprintf("👔 Formal"), p.Sprintf("Formal and precise, as in a professional setting: complete sentences, no slang, no emoji.")},
	}
}

// isReadyPersona reports whether persona is ready persona i, in p's words
// or those of any language: whoever chose it may speak another than the
// viewer.
func isReadyPersona(p lang.Printer, i int, persona string) bool {
	if persona == readyPersonas(p)[i].text {
		return true
	}
	return slices.ContainsFunc(lang.Languages(), func(l lang.Language) bool {
		return persona == readyPersonas(lang.For(l.Tag))[i].text
	})
}

// readyPersonaText is the text of the ready persona whose button data is
// value ("0", "1", …, canonical decimals only); "" when there is none.
func readyPersonaText(p lang.Printer, value string) string {
	i, err := strconv.Atoi(value)
	all := readyPersonas(p)
	if err != nil || i < 0 || i >= len(all) || strconv.Itoa(i) != value {
		return ""
	}
	return all[i].text
}
