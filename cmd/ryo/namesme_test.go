package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// An admin's command sent bare in reply to one of the bot's own messages
// names the bot, as its id or @username does: it says that is the bot,
// in the admin's language, instead of asking to reply to the person's
// message — which is what the admin did. In reply to another bot's
// message it says that is a bot, not a person. Nothing is stored for
// either.
func TestACommandInReplyToABotSaysItIsABot(t *testing.T) {
	oleg := telegramtest.NewUser("Олег", "oleg")
	oleg.LanguageCode = "ru"
	helper := telegramtest.NewUser("Helper", "helper_bot")
	helper.IsBot = true
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprintf("%d,%d", alice.ID, oleg.ID)
	h.env["RYO_TIERS"] = "basic=calculate;vip=*"
	h.start()

	q := h.tg.SendText(dm, alice, "/quota")
	list := reply(h, dm, q.ID, "• default — none")
	for _, text := range []string{"/ban", "/allow", "/promote", "/demote", "/tier vip", "/quota 3/day", "/quota default"} {
		q := h.tg.SendText(dm, alice, text, telegramtest.ReplyTo(list.ID))
		if got := reply(h, dm, q.ID, ""); !strings.Contains(got.Text, "That is me, the bot") {
			t.Errorf("%s in reply to the bot's message answered %q; want it to say that is the bot", text, got.Text)
		}
	}

	olegDM := telegramtest.PrivateChat(oleg)
	q = h.tg.SendText(olegDM, oleg, "/quota")
	list = reply(h, olegDM, q.ID, "")
	q = h.tg.SendText(olegDM, oleg, "/ban", telegramtest.ReplyTo(list.ID))
	reply(h, olegDM, q.ID, "Это я, бот.")
	q = h.tg.SendText(olegDM, oleg, fmt.Sprintf("/ban +%d", botUser.ID))
	reply(h, olegDM, q.ID, "Это я, бот.")

	said := h.tg.SendText(team, alice, "@"+botUser.Username+" hello there")
	answer := reply(h, team, said.ID, "")
	other := h.tg.SendText(team, helper, "I am another bot")
	for _, text := range []string{"/ban", "/promote", "/allow"} {
		q := h.tg.SendText(team, alice, text, telegramtest.ReplyTo(answer.ID))
		if got := reply(h, team, q.ID, ""); !strings.Contains(got.Text, "That is me, the bot") {
			t.Errorf("%s in reply to the bot's message in a group answered %q; want it to say that is the bot", text, got.Text)
		}
		q = h.tg.SendText(team, alice, text, telegramtest.ReplyTo(other.ID))
		if got := reply(h, team, q.ID, ""); !strings.Contains(got.Text, "That is a bot, not a person") {
			t.Errorf("%s in reply to another bot's message answered %q; want it to say that is a bot", text, got.Text)
		}
	}

	for _, id := range []int64{botUser.ID, helper.ID} {
		for table, column := range map[string]string{"users": "id", "person_quotas": "user_id", "memories": "owner_id"} {
			if n := memorytest.Count(t, h.env["DATABASE_URL"], fmt.Sprintf(`select count(*) from %s where %s = %d`, table, column, id)); n != 0 {
				t.Errorf("%s holds %d rows for bot %d", table, n, id)
			}
		}
	}
}
