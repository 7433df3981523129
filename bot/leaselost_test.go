package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A turn whose chat another replica took over while it ran (this one
// froze, or lost the database for longer than a lease lasts) leaves the
// update to that replica: it neither marks it failed nor tells the person
// something went wrong — the other replica is answering them.
func TestATurnWhoseChatWasTakenOverLeavesItToTheOtherReplica(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db := memorytest.OpenURL(t, url)
	logs := run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		// Meanwhile another replica takes the chat over.
		memorytest.Exec(t, url, fmt.Sprintf(`insert into replicas (id, lock_key) values ('elsewhere', 42)
			on conflict do nothing;
			update chat_leases set replica = 'elsewhere', until = now() + interval '1 hour' where chat_id = %d`, dm.ID))
		return agent.Output{Text: "an answer the other replica gives instead"}, nil
	}), 5)
	tg.SendText(dm, alice, "hello")
	waitFor(t, tg, "the turn to end here", func() bool {
		return strings.Contains(logs.String(), "another replica took this update")
	})
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Errorf("%d updates marked failed; the other replica answers them", n)
	}
	for _, m := range tg.BotMessages(dm.ID) {
		if strings.Contains(m.Text, "went wrong") {
			t.Errorf("the person was told something went wrong: %q", m.Text)
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("an error was logged:\n%s", logs.String())
	}
}
