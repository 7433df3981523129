package bot

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
)

// /settings shows a chat's settings in one message — its persona, the
// model's temperature, the language of the bot's own messages and, in a
// group, its answer mode (answermode.go) — and, to those who may change
// them, a button for each, which opens its choices. Those who may: in a
// private chat the person, in a group its Telegram administrators (an
// anonymous one too) and the bot's admins; anyone else is shown the
// settings without buttons, and a press of theirs on someone else's is
// refused with an alert. Each can be set as text too: /settings persona
// <text>, temperature <0 to 2>, language <tag>, mode <mention|every|off>.
// A change is stored at once and holds from the chat's next message.
//
// The message is a view (pages.go), bound to its message and chat, with
// screens: "" (the settings), "p", "t", "l", "m" (a setting's choices),
// and the choices, each checked against the fixed ones before it is
// stored: "P-" (no persona), "T<value>" or "T-" (the model's own), "L<tag>"
// or "L-" (automatic), "M<mode>".

// Temperatures a button sets, as their data carries them.
var temperatures = []string{"0", "0.3", "0.7", "1", "1.5", "2"}

// modeName is answer mode as a group's settings show it; "" for none.
func modeName(p lang.Printer, mode string) string {
	switch mode {
	case modeMention:
		return p.Sprintf("mentions and replies")
	case modeEvery:
		return p.Sprintf("every message")
	case modeOff:
		return p.Sprintf("commands only")
	}
	return ""
}

// settingsCommand is /settings.
func (b *Bot) settingsCommand(p lang.Printer) command {
	return command{name: "settings", help: p.Sprintf("this chat's persona, temperature, language and answer mode (admins change them)"), run: b.settingsCmd}
}

func (b *Bot) settingsCmd(ctx context.Context, c call) error {
	may, err := b.maySet(ctx, c.user, c.chat.ID)
	if err != nil {
		return err
	}
	args := strings.TrimSpace(c.args)
	what, rest := args, ""
	if i := strings.IndexFunc(args, unicode.IsSpace); i >= 0 { // a persona may start on the next line
		what, rest = args[:i], args[i:]
	}
	if what == "" {
		return b.sendSettings(ctx, c, may)
	}
	p := b.words(ctx, c.chat.ID, c.user)
	if !may {
		return b.reply(ctx, c, p.Sprintf(onlySetters))
	}
	said, err := b.setAsText(ctx, c, p, strings.ToLower(what), strings.TrimSpace(rest))
	if err != nil {
		return err
	}
	return b.reply(ctx, c, said)
}

// onlySetters says who may change the settings.
const onlySetters = "Only this chat's administrators and the bot's admins can change its settings. /settings shows them."

// maySet reports whether u may change chat's settings.
func (b *Bot) maySet(ctx context.Context, u ryo.User, chat int64) (bool, error) {
	switch {
	case !b.mayTalk(u):
		return false, nil
	case b.isAdmin(u), u.ID == chat: // the person of a private chat; a group's anonymous admin
		return true, nil
	case chat > 0:
		return false, nil
	}
	return b.administers(ctx, chat, u)
}

// sendSettings answers c with the chat's settings: with buttons for one
// who may change them.
func (b *Bot) sendSettings(ctx context.Context, c call, may bool) error {
	raw, _ := json.Marshal(viewSubject{})
	v := memory.View{ID: newActionID(), Kind: string(viewSettings), Viewer: c.user.ID, Chat: c.chat.ID, Subject: raw, Update: c.update}
	pg, err := b.settingsPage(ctx, v, "", c.user, may)
	if err != nil {
		return err
	}
	if !may {
		return b.reply(ctx, c, pg.text)
	}
	if err := b.db.SaveView(ctx, v); err != nil {
		return err
	}
	return b.replyOnce(ctx, c.w, c.update, c.place, c.msg.ID, pg.text, pg.buttons...)
}

// setAsText sets what as /settings <what> <value> asks, saying what came of it.
func (b *Bot) setAsText(ctx context.Context, c call, p lang.Printer, what, value string) (string, error) {
	reset := strings.EqualFold(value, "reset") || strings.EqualFold(value, "default") || strings.EqualFold(value, "auto")
	switch what {
	case "persona":
		if value == "" {
			return p.Sprintf("/settings persona <text> sets how I come across here (up to %d characters); /settings persona reset takes it away.", agent.MaxPersona), nil
		}
		if reset {
			value = ""
		}
		return b.setPersona(ctx, c.user, c.chat.ID, p, value)
	case "temperature":
		if reset {
			return b.setTemperature(ctx, c.user, c.chat.ID, p, "")
		}
		return b.setTemperature(ctx, c.user, c.chat.ID, p, value)
	case "language":
		if reset {
			return b.setLanguage(ctx, c.user, c.chat.ID, p, "")
		}
		tag, ok := lang.Supported(value)
		if !ok {
			return p.Sprintf("I don't speak %q. /settings lists the languages I do.", clip(value, 20)), nil
		}
		return b.setLanguage(ctx, c.user, c.chat.ID, p, tag)
	case "mode":
		if reset {
			value = modeMention
		}
		return b.setMode(ctx, c.user, c.chat.ID, p, strings.ToLower(value))
	}
	return p.Sprintf("/settings shows this chat's settings. Change one with /settings persona <text>, /settings temperature <0 to 2>, /settings language <%s> or, in a group, /settings mode <mention|every|off>; \"reset\" takes one back to the default.", languageTags()), nil
}

func languageTags() string {
	var tags []string
	for _, l := range lang.Languages() {
		tags = append(tags, l.Tag)
	}
	return strings.Join(tags, "|")
}

// setPersona makes persona, cleaned, chat's persona; "" takes it away.
func (b *Bot) setPersona(ctx context.Context, by ryo.User, chat int64, p lang.Printer, persona string) (string, error) {
	clean := agent.CleanPersona(persona)
	if n := agent.PersonaLength(persona); n > agent.MaxPersona { // as kept: invisible marks do not count
		return p.Sprintf("That persona is %d characters long; it may have %d at most.", n, agent.MaxPersona), nil
	}
	if persona != "" && clean == "" {
		return p.Sprintf("That persona has nothing I can show the model. /settings persona reset takes the persona away."), nil
	}
	if err := b.db.SetChatPersona(ctx, chat, by.ID, clean); err != nil {
		return "", err
	}
	b.log.InfoContext(ctx, "chat persona set", "chat_id", chat, "by", by.ID, "length", len([]rune(clean)))
	if clean == "" {
		return p.Sprintf("↩ No persona here any more, from the next message on."), nil
	}
	return p.Sprintf("✅ The persona is set; it holds from the next message on."), nil
}

// setTemperature makes value (0 to 2) chat's temperature; "" gives the
// chat the model's own again.
func (b *Bot) setTemperature(ctx context.Context, by ryo.User, chat int64, p lang.Printer, value string) (string, error) {
	var t *float64
	if value != "" {
		v, err := strconv.ParseFloat(strings.Replace(value, ",", ".", 1), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 2 {
			return p.Sprintf("The temperature is a number from 0 (focused) to 2 (varied), such as 0.7; /settings temperature reset gives the model's own back."), nil
		}
		v = math.Round(v*100)/100 + 0 // + 0: -0 is 0, and said so
		t = &v
	}
	if err := b.db.SetChatTemperature(ctx, chat, by.ID, t); err != nil {
		return "", err
	}
	b.log.InfoContext(ctx, "chat temperature set", "chat_id", chat, "by", by.ID, "temperature", value)
	if t == nil {
		return p.Sprintf("↩ The model's own temperature holds here again, from the next message on."), nil
	}
	return p.Sprintf("✅ The temperature here is %s from the next message on.", strconv.FormatFloat(*t, 'f', -1, 64)), nil
}

// setLanguage makes tag, one of lang.Languages, the language of the bot's
// messages in chat; "" makes it each person's own again.
func (b *Bot) setLanguage(ctx context.Context, by ryo.User, chat int64, _ lang.Printer, tag string) (string, error) {
	if err := b.db.SetChatLanguage(ctx, chat, by.ID, tag); err != nil {
		return "", err
	}
	b.log.InfoContext(ctx, "chat language set", "chat_id", chat, "by", by.ID, "language", tag)
	p := b.words(ctx, chat, by) // said in the language just chosen
	if tag == "" {
		return p.Sprintf("↩ I speak each person's own language here again."), nil
	}
	return p.Sprintf("✅ I speak %s here from now on.", languageName(tag)), nil
}

func languageName(tag string) string {
	for _, l := range lang.Languages() {
		if l.Tag == tag {
			return l.Name
		}
	}
	return tag
}

// setMode makes mode chat's answer mode; in a private chat there is none.
func (b *Bot) setMode(ctx context.Context, by ryo.User, chat int64, p lang.Printer, mode string) (string, error) {
	if chat > 0 {
		return p.Sprintf("The answer mode is for groups: here I answer every message."), nil
	}
	if modeName(p, mode) == "" {
		return p.Sprintf("The answer mode is mention (mentions and replies), every (every message) or off (commands only)."), nil
	}
	stored := mode
	if mode == modeMention {
		stored = ""
	}
	if err := b.db.SetChatAnswerMode(ctx, chat, by.ID, stored); err != nil {
		return "", err
	}
	b.modes.set(chat, stored)
	b.log.InfoContext(ctx, "chat answer mode set", "chat_id", chat, "by", by.ID, "mode", mode)
	said := p.Sprintf("✅ Here I answer %s from now on.", modeName(p, mode))
	if mode == modeEvery {
		said += " " + p.Sprintf(privacyNote)
	}
	return said, nil
}

// privacyNote says what "every" needs of Telegram.
const privacyNote = "Telegram shows me every message only when my privacy mode is off (BotFather: /setprivacy) or I'm an administrator here."

// onMigration carries a group's settings to the supergroup Telegram made
// of it, which has a new id. Telegram says so in both chats; whichever
// message comes first carries them, and the other finds them there.
func (b *Bot) onMigration(ctx context.Context, m *models.Message) error {
	from, to := m.Chat.ID, m.MigrateToChatID
	if m.MigrateFromChatID != 0 {
		from, to = m.MigrateFromChatID, m.Chat.ID
	}
	if from >= 0 || to >= 0 || from == to {
		return nil
	}
	if err := b.db.CarryChatSettings(ctx, from, to); err != nil {
		return err
	}
	s, err := b.db.ChatSettings(ctx, to)
	if err != nil {
		return err
	}
	b.modes.set(to, s.AnswerMode)
	b.log.InfoContext(ctx, "a group became a supergroup: its settings hold there", "chat_id", to, "from_chat_id", from)
	return nil
}
