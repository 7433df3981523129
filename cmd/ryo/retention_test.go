package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
)

// What a group wrote that was not meant for ryo is kept as context, and
// goes once it is older than RYO_RETAIN_CONTEXT, at the next start (and
// every hour); what was asked and answered stays. Handled updates go
// after RYO_RETAIN_UPDATES, lists after RYO_RETAIN_VIEWS; the log counts
// what went.
func TestRetentionSweepsAtStart(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.tg.SendText(team, bob, "anyone for lunch?")
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Noon suits me.")})
	q := h.tg.SendText(team, alice, "@ryo_test_bot when is lunch?")
	h.answer(team, q.ID, "Noon suits me.")
	for i := range 11 {
		h.remember(alice.ID, ryo.ScopeUser, dm.ID, fmt.Sprint("fact ", i))
	}
	q = h.tg.SendText(dm, alice, "/memory")
	h.reply(dm, q.ID, "page 1 of 2")
	h.waitFor("the group's answer stored", func() bool {
		return len(history(t, h.db(), ryo.Place{ChatID: team.ID})) == 3
	})
	h.stopMain()
	url := h.env["DATABASE_URL"]
	memorytest.Exec(t, url, `update messages set created_at = created_at - interval '31 days'`)
	memorytest.Exec(t, url, `update updates set finished_at = finished_at - interval '8 days'`)
	memorytest.Exec(t, url, `update views set created_at = created_at - interval '2 days'`)
	if n := memorytest.Count(t, url, `select count(*) from messages where context_only`); n != 1 {
		t.Fatalf("%d messages kept as context only; want Bob's chatter", n)
	}

	h.start()
	h.waitFor("the sweep at start", func() bool { return strings.Contains(h.logs.String(), "deleted what is past its retention") })
	got := strings.Join(history(t, h.db(), ryo.Place{ChatID: team.ID}), "|")
	if got != "user: @ryo_test_bot when is lunch?|assistant: Noon suits me." {
		t.Errorf("the group's history after the sweep: %q", got)
	}
	for what, q := range map[string]string{
		"handled updates": `select count(*) from updates where state = 'done'`,
		"views":           `select count(*) from views`,
	} {
		if n := memorytest.Count(t, url, q); n != 0 {
			t.Errorf("%d %s are left", n, what)
		}
	}
	if !strings.Contains(h.logs.String(), "context_messages=1") {
		t.Errorf("the log does not count the context message")
	}
}
