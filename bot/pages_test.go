package bot

import (
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/memory"
)

// Whether a press may turn a list's page, from its facts alone.
func TestJudgePage(t *testing.T) {
	ok := pageFacts{found: true, sameMsg: true, fresh: true, mayUse: true, viewer: true}
	with := func(change func(*pageFacts)) pageFacts {
		f := ok
		change(&f)
		return f
	}
	for _, c := range []struct {
		name string
		f    pageFacts
		want pageVerdict
	}{
		{"the viewer, where it was shown", ok, pageTurns},
		{"unknown view or page", with(func(f *pageFacts) { f.found = false }), pageStale},
		{"on another message or chat", with(func(f *pageFacts) { f.sameMsg = false }), pageStale},
		{"forged elsewhere and old", with(func(f *pageFacts) { f.sameMsg, f.fresh = false, false }), pageStale},
		{"older than a day", with(func(f *pageFacts) { f.fresh = false }), pageExpired},
		{"banned since", with(func(f *pageFacts) { f.mayUse = false }), pageMayNotUse},
		{"someone else's", with(func(f *pageFacts) { f.viewer = false }), pageNotTheirs},
		{"an admin's list, still an admin", with(func(f *pageFacts) { f.forAdmins, f.admin = true, true }), pageTurns},
		{"an admin's list, demoted since", with(func(f *pageFacts) { f.forAdmins = true }), pageNotTheirs},
		{"banned and someone else's", with(func(f *pageFacts) { f.mayUse, f.viewer = false, false }), pageMayNotUse},
	} {
		if got := judgePage(c.f); got != c.want {
			t.Errorf("%s: judgePage(%+v) = %d; want %d", c.name, c.f, got, c.want)
		}
	}
}

// A list's buttons belong to the message the list was sent as; until that
// message is recorded, to a message in its chat that carries them.
func TestShownOn(t *testing.T) {
	const group = -1001234567890
	msg := func(chat int64, id int, data ...string) *models.Message {
		m := &models.Message{ID: id, Chat: models.Chat{ID: chat}}
		if len(data) > 0 {
			var row []models.InlineKeyboardButton
			for _, d := range data {
				row = append(row, models.InlineKeyboardButton{Text: "x", CallbackData: d})
			}
			m.ReplyMarkup = &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{row}}
		}
		return m
	}
	recorded := memory.View{ID: "v1", Chat: group, Message: 2147483700}
	pending := memory.View{ID: "v1", Chat: group}
	for _, c := range []struct {
		name string
		m    *models.Message
		v    memory.View
		want bool
	}{
		{"its message", msg(group, 2147483700), recorded, true},
		{"another message", msg(group, 2147483701, "pg:v1:1"), recorded, false},
		{"its id in another chat", msg(-1009876543210, 2147483700), recorded, false},
		{"inaccessible", nil, recorded, false},
		{"not recorded yet, its buttons", msg(group, 7, "pg:v1:0", "pg:v1:2"), pending, true},
		{"not recorded yet, a prompt's buttons", msg(group, 7, "ok:abc", "no:abc"), pending, false},
		{"not recorded yet, another view's buttons", msg(group, 7, "pg:v10:1"), pending, false},
		{"not recorded yet, no buttons", msg(group, 7), pending, false},
		{"not recorded yet, another chat", msg(-1009876543210, 7, "pg:v1:1"), pending, false},
	} {
		if got := shownOn(c.m, c.v); got != c.want {
			t.Errorf("%s: shownOn = %v; want %v", c.name, got, c.want)
		}
	}
}
