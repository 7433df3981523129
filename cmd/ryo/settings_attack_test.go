package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A temperature is a plain number from 0 to 2: "NaN", infinities, a
// number too large for a float, a hair over 2, Arabic-Indic digits are
// refused; a decimal comma and a leading point are read; "-0" is 0, and
// said so.
func TestSettingsTemperatureAsText(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	for _, tt := range []struct {
		in, said string
		want     *float64
	}{
		{"NaN", "a number from 0 (focused) to 2", nil},
		{"Inf", "a number from 0 (focused) to 2", nil},
		{"-Infinity", "a number from 0 (focused) to 2", nil},
		{"1e309", "a number from 0 (focused) to 2", nil},
		{"2.0000001", "a number from 0 (focused) to 2", nil},
		{"-0.001", "a number from 0 (focused) to 2", nil},
		{"٠٫٧", "a number from 0 (focused) to 2", nil},
		{"0,7", "temperature here is 0.7 from", ptr(0.7)},
		{".5", "temperature here is 0.5 from", ptr(0.5)},
		{"-0", "temperature here is 0 from", ptr(0)},
	} {
		q := h.tg.SendText(team, alice, "/settings temperature "+tt.in) // the bot's admin: no allowance of messages to run out of
		got := h.reply(team, q.ID, "")
		if !strings.Contains(got.Text, tt.said) {
			t.Errorf("/settings temperature %s was answered %q; want %q", tt.in, got.Text, tt.said)
		}
		set, err := h.db().ChatSettings(t.Context(), team.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tt.want != nil && (set.Temperature == nil || *set.Temperature != *tt.want) {
			t.Errorf("after /settings temperature %s the temperature is %v; want %v", tt.in, set.Temperature, *tt.want)
		}
	}
}

func ptr(f float64) *float64 { return &f }

// Presses that must change nothing: by an administrator since demoted, by
// an administrator of another group, and a /settings change sent as a
// channel (someone posting as their channel, whose id is a chat's).
func TestSettingsRefusedToOutsiders(t *testing.T) {
	h := settingsHarness(t)
	carol := telegramtest.NewUser("Carol", "carol")
	other := telegramtest.NewSupergroup("Other")
	h.tg.SetMember(other, carol, telegramtest.StatusAdministrator)
	h.tg.SetMember(team, carol, telegramtest.StatusMember)
	h.start()
	q := h.tg.SendText(team, dora, "/settings")
	s := h.reply(team, q.ID, "Settings of this chat")
	if a := h.pressAnswer(h.press(team, carol, s, "🌡 Temperature")); !a.ShowAlert || !strings.Contains(a.Text, "Only this chat's administrators") {
		t.Fatalf("another group's administrator's press was answered %+v", a)
	}
	h.tg.SetMember(team, dora, telegramtest.StatusMember)
	if a := h.pressAnswer(h.press(team, dora, s, "🌡 Temperature")); !a.ShowAlert || !strings.Contains(a.Text, "Only this chat's administrators") {
		t.Fatalf("a demoted administrator's press was answered %+v", a)
	}
	if m := h.message(team, s.ID); !strings.Contains(m.Text, "Settings of this chat") {
		t.Fatalf("a refused press changed the view to %q", m.Text)
	}
	channel := telegramtest.NewChannel("Loud Channel")
	chat := map[string]any{"id": team.ID, "title": team.Title, "type": "supergroup", "is_forum": true}
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512401, "date": time.Now().Unix(),
		"from":        map[string]any{"id": 136817688, "is_bot": true, "first_name": "Channel", "username": "Channel_Bot"},
		"sender_chat": map[string]any{"id": channel.ID, "title": channel.Title, "type": "channel"}, "chat": chat, "text": "/settings mode every",
		"entities": []any{map[string]any{"type": "bot_command", "offset": 0, "length": len("/settings")}}}})
	h.waitFor("the channel refused", func() bool {
		for _, m := range h.tg.BotMessages(team.ID) {
			if strings.Contains(m.Text, "Only this chat's administrators") {
				return true
			}
		}
		return false
	})
	if set, err := h.db().ChatSettings(t.Context(), team.ID); err != nil || set.AnswerMode != "" || set.Temperature != nil {
		t.Fatalf("after refused presses and a channel's /settings the settings are %+v, %v", set, err)
	}
}

// Two who may change the settings press different temperatures at the
// same moment: the last stored wins, and the view, once both presses are
// answered, shows what is stored.
func TestTwoAdministratorsPressAtOnce(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	q := h.tg.SendText(team, dora, "/settings")
	s := h.reply(team, q.ID, "Settings of this chat")
	for round := range 3 {
		h.pressAnswer(h.press(team, dora, h.message(team, s.ID), "🌡 Temperature"))
		h.waitFor("the temperatures", func() bool { return strings.Contains(h.message(team, s.ID).Text, "lower is more focused") })
		temps := h.message(team, s.ID)
		first, second := "0.3", "1.5"
		if round%2 == 1 {
			first, second = second, first
		}
		a := h.pressTemperature(dora, temps, first)
		b := h.pressTemperature(alice, temps, second)
		h.pressAnswer(a)
		h.pressAnswer(b)
		set, err := h.db().ChatSettings(t.Context(), team.ID)
		if err != nil || set.Temperature == nil {
			t.Fatalf("the settings are %+v, %v", set, err)
		}
		want := fmt.Sprintf("Temperature: %s", formatFloat(*set.Temperature))
		h.waitWithin(10*time.Second, fmt.Sprintf("round %d: the view to show %s, as stored", round, want), func() bool {
			return strings.Contains(h.message(team, s.ID).Text, want)
		})
	}
}

func formatFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// pressTemperature presses the button of temperature t on m, a team's
// settings view, as user.
func (h *harness) pressTemperature(user telegramtest.User, m telegramtest.Message, t string) string {
	h.t.Helper()
	for _, row := range m.Buttons() {
		for _, b := range row {
			if strings.HasSuffix(b.Data, ":T"+t) {
				id, err := h.tg.Press(team.ID, user, m.ID, b.Data)
				if err != nil {
					h.t.Fatal(err)
				}
				return id
			}
		}
	}
	h.t.Fatalf("message %d has no button of temperature %s: %+v", m.ID, t, m.Buttons())
	return ""
}

// Telegram fails every edit of the view just as a choice is pressed, and
// the bot stops: the choice is stored, and after the restart the next
// turn is asked with it and /settings shows it.
func TestSettingSavedButViewNotEditedThenRestart(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	q := h.tg.SendText(team, dora, "/settings")
	s := h.reply(team, q.ID, "Settings of this chat")
	h.pressAnswer(h.press(team, dora, s, "🌡 Temperature"))
	h.waitFor("the temperatures", func() bool { return strings.Contains(h.message(team, s.ID).Text, "lower is more focused") })
	h.tg.FailNext("editMessageText", 1000, telegramtest.APIError{Code: 500, Description: "Internal Server Error"})
	if a := h.pressAnswer(h.pressTemperature(dora, h.message(team, s.ID), "1.5")); !strings.Contains(a.Text, "temperature here is 1.5") {
		t.Fatalf("the press was answered %+v", a)
	}
	h.stopMain()
	h.tg.FailNext("editMessageText", 0, telegramtest.APIError{})
	h.start()
	q = h.tg.SendText(team, bob, "@ryo_test_bot hi")
	h.answer(team, q.ID, "hello")
	if got := h.lastRequest().Options["temperature"]; got != 1.5 {
		t.Fatalf("after the restart the turn was asked with temperature %v; want 1.5", got)
	}
	q = h.tg.SendText(team, dora, "/settings")
	h.reply(team, q.ID, "Temperature: 1.5")
}

// A persona with markup is shown as written, not as formatting, to the
// group's members too; it reaches only its own chat's prompt; a private
// chat's answer mode cannot be set, by text or by a forged button.
func TestPersonaShownAsWrittenAndKeptToItsChat(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	persona := "<b>Loud</b> *bold* [click](https://evil.example) `code` &amp; # How you answer"
	q := h.tg.SendText(team, dora, "/settings persona "+persona)
	h.reply(team, q.ID, "The persona is set")
	q = h.tg.SendText(team, bob, "/settings")
	s := h.reply(team, q.ID, "Settings of this chat")
	if !strings.Contains(s.Text, persona) || len(s.Entities()) != 0 {
		t.Fatalf("a member's /settings shows the persona as %q with entities %+v", s.Text, s.Entities())
	}
	q = h.tg.SendText(bobDM, bob, "/settings mode every")
	h.reply(bobDM, q.ID, "The answer mode is for groups")
	q = h.tg.SendText(bobDM, bob, "hi")
	h.answer(bobDM, q.ID, "hello")
	if system := h.lastRequest().Messages[0].Content; strings.Contains(system, "Loud") || strings.Contains(system, "persona begins") {
		t.Fatalf("the group's persona reached a private chat's prompt:\n%s", system)
	}
	if set, err := h.db().ChatSettings(t.Context(), bobDM.ID); err != nil || set.AnswerMode != "" || set.Persona != "" {
		t.Fatalf("the private chat's settings are %+v, %v", set, err)
	}
}

// In a group answering only commands, a photo, a document and a voice
// note meant for the bot — by a mention in the caption or a reply to it —
// get no answer, and the model is not asked; commands still work.
func TestAnswerModeOffRefusesMediaToo(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	q := h.tg.SendText(team, dora, "/settings mode off")
	h.reply(team, q.ID, "commands only")
	mine := h.tg.BotMessages(team.ID)[len(h.tg.BotMessages(team.ID))-1]
	sent := []telegramtest.Message{
		h.tg.SendPhoto(team, bob, imagetest.Picture(320, 240, "jpeg"), "@ryo_test_bot what is it?"),
		h.tg.SendDocument(team, bob, telegramtest.Document{FileName: "notes.txt", MimeType: "text/plain", Data: []byte("hello")}, "@ryo_test_bot read this"),
		h.tg.SendRecording(team, bob, telegramtest.Recording{Kind: telegramtest.KindVoice, Data: []byte("OggS"), Duration: 2}, "", telegramtest.ReplyTo(mine.ID)),
		h.tg.SendText(team, bob, "@ryo_test_bot hello?"),
	}
	q = h.tg.SendText(team, bob, "/help")
	h.reply(team, q.ID, "/settings")
	for _, m := range h.tg.BotMessages(team.ID) {
		for _, s := range sent {
			if m.ReplyTo == s.ID {
				t.Errorf("message %d, meant for the bot in a group answering only commands, was answered %q", s.ID, m.Text)
			}
		}
	}
	if n := len(h.llm.Requests()); n != 0 {
		t.Fatalf("the model was asked %d times", n)
	}
}

// A persona is measured as it is kept: a thousand characters with soft
// hyphens and zero-width spaces from a copied page is not refused as too
// long, and it is kept without them.
func TestPersonaLengthCountsWhatIsKept(t *testing.T) {
	h := settingsHarness(t)
	h.start()
	persona := strings.Repeat("a", 950) + strings.Repeat("\u00ad\u200b", 40)
	q := h.tg.SendText(team, dora, "/settings persona "+persona)
	h.reply(team, q.ID, "")
	set, err := h.db().ChatSettings(t.Context(), team.ID)
	if err != nil || set.Persona != strings.Repeat("a", 950) {
		t.Fatalf("a persona of 950 characters and 80 invisible ones was kept as %.40q (%d), %v; want its 950 characters",
			set.Persona, len(set.Persona), err)
	}
	q = h.tg.SendText(team, dora, "/settings persona "+strings.Repeat("b", 1001)+"\u200b")
	h.reply(team, q.ID, "That persona is 1001 characters long; it may have 1000 at most.")
	if set, err := h.db().ChatSettings(t.Context(), team.ID); err != nil || set.Persona != strings.Repeat("a", 950) {
		t.Fatalf("a persona too long changed the kept one to %.40q, %v", set.Persona, err)
	}
}
