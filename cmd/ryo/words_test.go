package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden")

// People whose Telegram speaks Russian, and someone whose language ryo
// does not speak.
var (
	ivan    = speaking(telegramtest.NewUser("Ivan", "ivan"), "ru")
	ivanDM  = telegramtest.PrivateChat(ivan)
	olga    = speaking(telegramtest.NewUser("Olga", "olga"), "ru-RU")
	olgaDM  = telegramtest.PrivateChat(olga)
	kofi    = speaking(telegramtest.NewUser("Kofi", "kofi"), "xx")
	kofiDM  = telegramtest.PrivateChat(kofi)
	english = speaking(telegramtest.NewUser("Emma", "emma"), "en")
	emmaDM  = telegramtest.PrivateChat(english)
)

func speaking(u telegramtest.User, language string) telegramtest.User {
	u.LanguageCode = language
	return u
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// A person whose Telegram speaks Russian reads ryo's own words in Russian
// — /start, /help, the command menu — and one who speaks English, or a
// language ryo does not, in English; "ru-RU" is Russian.
func TestPeopleReadRyoInTheirLanguage(t *testing.T) {
	h := newHarness(t)
	h.start()

	start := h.tg.SendText(ivanDM, ivan, "/start")
	hi := reply(h, ivanDM, start.ID, "Привет, Ivan!")
	if !strings.Contains(hi.Text, "Просто напишите мне.") || !strings.Contains(hi.Text, "/help покажет команды") {
		t.Errorf("/start in Russian: %q", hi.Text)
	}
	help := h.tg.SendText(ivanDM, ivan, "/help")
	golden(t, "help.ru.golden", reply(h, ivanDM, help.ID, "Напишите мне").Text)
	en := h.tg.SendText(emmaDM, english, "/help")
	golden(t, "help.en.golden", reply(h, emmaDM, en.ID, "Write to me").Text)

	olgaStart := h.tg.SendText(olgaDM, olga, "/start")
	reply(h, olgaDM, olgaStart.ID, "Привет, Olga!")
	kofiStart := h.tg.SendText(kofiDM, kofi, "/start")
	reply(h, kofiDM, kofiStart.ID, "Hi Kofi!")
	unknown := h.tg.SendText(ivanDM, ivan, "/frobnicate")
	reply(h, ivanDM, unknown.ID, "Я не знаю команды /frobnicate. /help покажет, что я умею.")

	menu := func(language string) map[string]string {
		m := map[string]string{}
		for _, c := range h.tg.CommandsIn(language) {
			m[c.Command] = c.Description
		}
		return m
	}
	if ru, en := menu("ru"), menu(""); ru["help"] != "список команд, которые вам доступны" || en["help"] != "list the commands you can use" ||
		len(ru) != len(en) || len(ru) < 10 {
		t.Errorf("the menus: Russian %v, everyone else's %v", ru, en)
	}
	if len(h.llm.Requests()) != 0 {
		t.Error("commands asked the model")
	}
}

// A chat set to English speaks English to a Russian speaker, and a chat
// set to Russian speaks Russian to anyone: the chat's choice comes first.
func TestTheChatsLanguageComesFirst(t *testing.T) {
	h := newHarness(t)
	h.start()
	url := h.env["DATABASE_URL"]
	memorytest.Exec(t, url, fmt.Sprintf(`insert into chat_settings (chat_id, language, set_at) values (%d, 'en', now())`, ivanDM.ID))
	memorytest.Exec(t, url, fmt.Sprintf(`insert into chat_settings (chat_id, language, set_at) values (%d, 'ru', now())`, emmaDM.ID))

	q := h.tg.SendText(ivanDM, ivan, "/start")
	reply(h, ivanDM, q.ID, "Hi Ivan!")
	q = h.tg.SendText(emmaDM, english, "/start")
	reply(h, emmaDM, q.ID, "Привет, Emma!")
}

// A Russian speaker past their quota is told so in Russian, with the
// right plural; the model is not asked.
func TestTheQuotaRefusalIsInTheirLanguage(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_QUOTA"] = "10/hour, 3/day"
	h.env["RYO_TIMEZONE"] = "UTC"
	h.start()
	first, again := quotaDay()
	used(t, h, first, team.ID, ivan, "llama3.2", 1)
	used(t, h, time.Now().Add(-2*time.Hour), ivanDM.ID, ivan, "llama3.2", 2)

	q := h.tg.SendText(ivanDM, ivan, "сколько будет 6*7")
	when := "в " + again.UTC().Format("15:04") + " UTC"
	if again.UTC().Day() != time.Now().UTC().Day() {
		when = "завтра " + when
	}
	polite := reply(h, ivanDM, q.ID, "🙏 Вы исчерпали дневной лимит — 3 ответа")
	if !strings.Contains(polite.Text, "снова спросить можно "+when) || !strings.Contains(polite.Text, "Ваше сообщение сохранено.") {
		t.Errorf("the quota message %q; want it to say %q", polite.Text, when)
	}
	if len(h.llm.Requests()) != 0 {
		t.Error("the model was asked past the quota")
	}
}

// A Russian speaker's turn shows its status in Russian, with a ⏹ Стоп
// that stops it; a stranger who presses it is refused in their own
// language; forged data is refused in the presser's language too; what was
// written is kept, marked stopped in Russian, and the status line says so.
func TestAStopIsSaidInTheirLanguage(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	h.tg.SendText(bobDM, bob, "/start")
	h.waitFor("bob's start", func() bool { return len(h.tg.BotMessages(bobDM.ID)) == 1 })
	q := h.tg.SendText(team, ivan, "@ryo_test_bot расскажи длинную историю")
	var status telegramtest.Message
	h.waitFor("a Russian status message with its stop button", func() bool {
		for _, m := range h.tg.BotMessages(team.ID) {
			if b := m.Buttons(); m.ReplyTo == q.ID && len(b) == 1 && b[0][0].Text == "⏹ Стоп" && strings.Contains(m.Text, "✍️ Пишу…") {
				status = m
				return true
			}
		}
		return false
	})
	if !strings.Contains(status.Text, "The first half") {
		t.Errorf("the status message %q; want the reply so far under the stage", status.Text)
	}
	refused := h.pressAnswer(h.press(team, bob, status, "⏹"))
	if refused.Text != "Only Ivan (@ivan) or an admin can stop this answer." || !refused.ShowAlert {
		t.Fatalf("an English stranger's press was answered %+v", refused)
	}
	forged := h.pressAnswer(h.tg.PressForged(team.ID, ivan, status.ID, "s1:nonsense"))
	if forged.Text != "Эта кнопка больше не работает." {
		t.Errorf("forged data was answered %+v", forged)
	}
	elsewhere := h.pressAnswer(h.tg.PressForged(team.ID, ivan, status.ID, fmt.Sprintf("s1:%d:%d", 1, int64(-1001234567890))))
	if elsewhere.Text != "Эта кнопка не из этого чата." {
		t.Errorf("a press naming another chat was answered %+v", elsewhere)
	}
	stopped := h.pressAnswer(h.press(team, ivan, status, "⏹"))
	if stopped.Text != "⏹ Останавливаюсь — уже написанное сохраню." || stopped.ShowAlert {
		t.Fatalf("the asker's stop was answered %+v", stopped)
	}
	h.answer(team, q.ID, "⏹ Остановлено")
	var kept bool
	for _, m := range h.tg.BotMessages(team.ID) {
		kept = kept || strings.Contains(m.Text, "The first half of the answer") && strings.HasSuffix(m.Text, "⏹ Остановлено")
	}
	if !kept {
		t.Errorf("no answer kept and marked stopped in Russian: %v", h.tg.BotMessages(team.ID))
	}
	replayed := h.pressAnswer(h.tg.PressForged(team.ID, ivan, status.ID, stopData(status)))
	if replayed.Text != "Этот ответ уже не пишется, останавливать нечего." {
		t.Errorf("a replayed press was answered %+v", replayed)
	}
	h.waitFor("the status line says it stopped, in Russian", func() bool {
		m := h.message(team, status.ID)
		return strings.HasPrefix(m.Text, "⏹ Остановлено через ") || strings.Contains(m.Text, "⏹ Остановлено")
	})
}

// A Russian speaker's lists turn their pages with Russian buttons, and
// their confirmation prompts ask in Russian; a stranger's press on either
// is refused in the stranger's own language, and changes nothing.
func TestListsAndPromptsAreInTheirLanguage(t *testing.T) {
	h := newHarness(t)
	h.start()
	for i := 1; i <= 12; i++ {
		h.remember(ivan.ID, ryo.ScopeUser, ivanDM.ID, fmt.Sprintf("факт номер %d", i))
	}
	q := h.tg.SendText(ivanDM, ivan, "/memory")
	list := h.reply(ivanDM, q.ID, "Ваши воспоминания (12) — страница 1 из 2")
	if b := list.Buttons(); len(b) != 1 || b[0][0].Text != "Дальше ▶" || !strings.Contains(list.Text, "Забыть одно из них: /forget <id>.") {
		t.Fatalf("the first page: %q with %+v", list.Text, b)
	}
	stranger := h.pressAnswer(h.tg.PressForged(ivanDM.ID, bob, list.ID, list.Buttons()[0][0].Data))
	if stranger.Text != "Only the person who asked for this list can turn its pages." || !stranger.ShowAlert {
		t.Fatalf("a stranger's page press was answered %+v", stranger)
	}
	h.pressAnswer(h.press(ivanDM, ivan, list, "Дальше"))
	h.waitFor("page 2 in Russian", func() bool { return strings.Contains(h.message(ivanDM, list.ID).Text, "страница 2 из 2") })
	if b := h.message(ivanDM, list.ID).Buttons(); len(b) != 1 || b[0][0].Text != "◀ Назад" {
		t.Fatalf("page 2's buttons: %+v", b)
	}

	m := h.remember(ivan.ID, ryo.ScopeUser, ivanDM.ID, "код от шкафчика 1234")
	q = h.tg.SendText(ivanDM, ivan, fmt.Sprintf("/forget %d", m.ID))
	p := h.promptFor(ivanDM, q.ID)
	if !strings.Contains(p.Text, "Подтвердите, прежде чем я это сделаю") || !strings.Contains(p.Text, fmt.Sprintf("Забыть воспоминание #%d: «код от шкафчика 1234»", m.ID)) ||
		!strings.Contains(p.Text, "⚠️ Это нельзя отменить.") || !strings.Contains(p.Text, "Действует до ") {
		t.Fatalf("the prompt: %q", p.Text)
	}
	if b := p.Buttons(); len(b) != 1 || len(b[0]) != 2 || b[0][0].Text != "✅ Подтвердить" || b[0][1].Text != "❌ Отмена" {
		t.Fatalf("the prompt's buttons: %+v", b)
	}
	refused := h.pressAnswer(h.tg.PressForged(ivanDM.ID, bob, p.ID, p.Buttons()[0][0].Data))
	if !refused.ShowAlert || !strings.HasPrefix(refused.Text, "Only ") {
		t.Fatalf("a stranger's press on the prompt was answered %+v", refused)
	}
	if a := h.pressAnswer(h.press(ivanDM, ivan, p, "❌")); a.Text != "❌ Отменено — ничего не сделано." {
		t.Fatalf("the cancel was answered %+v", a)
	}
	h.settled(ivanDM, p.ID, "❌ Отменено (")
	if _, ok, _ := h.db().Memory(bg(t), ryo.PersonShelf(ivan.ID), m.ID); !ok {
		t.Fatal("a cancelled forget forgot")
	}
}

// Telegram refuses an alert longer than 200 characters. A name as long as
// Telegram allows (64 + 64 characters, a 32-character username) fits the
// English refusal of a stranger's 🔄, but the Russian sentence around it
// is longer: the alert must still reach Ivan, whole and in Russian.
func TestALongNameStillFitsARussianAlert(t *testing.T) {
	h := newHarness(t)
	long := telegramtest.NewUser(strings.Repeat("Я", 64), strings.Repeat("u", 32))
	long.LastName = strings.Repeat("Ж", 64)
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The first answer.")})
	h.start()
	q := h.tg.SendText(team, long, "@ryo_test_bot tell me something")
	a := h.answered(team, q.ID, "The first answer.")
	h.waitFor("🔄 under the answer", func() bool { return againButton(h.message(team, a.ID)) != "" })
	got := h.pressAnswer(h.press(team, ivan, h.message(team, a.ID), "🔄"))
	if !got.ShowAlert || !strings.HasPrefix(got.Text, "Попросить этот ответ заново может только ") ||
		len([]rune(got.Text)) > 200 || !strings.HasSuffix(got.Text, ".") {
		t.Fatalf("Ivan's press was answered %+v (%d characters)", got, len([]rune(got.Text)))
	}
}

// A stranger's ⏹ is refused by name in an alert; a name as long as
// Telegram allows still leaves the whole sentence, in English and in
// Russian.
func TestALongNameStillFitsAStopRefusal(t *testing.T) {
	h := newHarness(t)
	pause := make(chan struct{})
	defer close(pause)
	long := telegramtest.NewUser(strings.Repeat("Я", 64), strings.Repeat("u", 32))
	long.LastName = strings.Repeat("Ж", 64)
	h.llm.Enqueue(slowAnswer(pause))
	h.start()
	q := h.tg.SendText(team, long, "@ryo_test_bot tell me a long story")
	status := h.stopButton(team, q.ID, "🤔")
	for _, c := range []struct {
		who          telegramtest.User
		start, close string
	}{
		{ivan, "Остановить этот ответ может только ЯЯЯ", " или админ."},
		{english, "Only ЯЯЯ", " or an admin can stop this answer."},
	} {
		got := h.pressAnswer(h.press(team, c.who, status, "⏹"))
		if !got.ShowAlert || !strings.HasPrefix(got.Text, c.start) || !strings.HasSuffix(got.Text, c.close) || len([]rune(got.Text)) > 200 {
			t.Errorf("%s's press was answered %+v (%d characters)", c.who.FirstName, got, len([]rune(got.Text)))
		}
	}
}

// Telegram's language codes as they come — upper case, with a region
// after "_", empty, a script, absurdly long — find Russian or fall back to
// English; a chat set to a language ryo no longer speaks speaks English,
// and its /settings says so without failing; a hostile tag asked for is
// refused in Russian, its markup shown as text.
func TestOddLanguageCodesAndTags(t *testing.T) {
	h := newHarness(t)
	h.start()
	for i, c := range []struct{ code, want string }{
		{"RU", "Привет,"}, {"ru_RU", "Привет,"}, {"", "Hi "}, {"zh-hans", "Hi "},
		{strings.Repeat("r", 64), "Hi "}, {"ru-" + strings.Repeat("x", 60), "Привет,"},
	} {
		u := speaking(telegramtest.NewUser(fmt.Sprintf("P%d", i), ""), c.code)
		u.ID = 7_123_456_700 + int64(i)
		dm := telegramtest.PrivateChat(u)
		q := h.tg.SendText(dm, u, "/start")
		reply(h, dm, q.ID, c.want)
	}
	memorytest.Exec(t, h.env["DATABASE_URL"], fmt.Sprintf(`insert into chat_settings (chat_id, language, set_at) values (%d, 'de', now())`, ivanDM.ID))
	q := h.tg.SendText(ivanDM, ivan, "/start")
	reply(h, ivanDM, q.ID, "Hi Ivan!")
	q = h.tg.SendText(ivanDM, ivan, "/settings")
	reply(h, ivanDM, q.ID, "🌐 My language: de")
	q = h.tg.SendText(olgaDM, olga, "/settings language <b>&\u202e")
	reply(h, olgaDM, q.ID, "Я не говорю на \"<b>&\\u202e\".")
}
