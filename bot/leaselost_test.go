package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
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

// The chat taken over (by a replica alive, then gone) comes back: the
// update left unfinished is finished without its delivered answer being
// sent again, with no apology, and the next message is answered.
func TestALostChatIsLeftToItsHolderWithoutAnApology(t *testing.T) {
	tg, url := newTelegram(t, false), memorytest.URL(t)
	db, other := memorytest.OpenURL(t, url), memorytest.OpenURL(t, url)
	r, err := other.Join(context.Background(), "other")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Leave(context.Background()) })
	run(t, tg, db, answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		if newest(in.History) != "first" {
			return agent.Output{Text: "the second answer"}, nil
		}
		// While the model answered, the other replica took the chat over.
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return agent.Output{}, err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `update chat_leases set replica = 'other', until = now() + interval '1 hour' where chat_id = $1::bigint`, dm.ID)
		return agent.Output{Text: "the first answer"}, err
	}), 5)
	tg.SendText(dm, alice, "first")
	waitFor(t, tg, "the first answer", botSays(tg, "the first answer"))
	r.Leave(context.Background()) // the chat is free again
	tg.SendText(dm, alice, "second")
	waitFor(t, tg, "the second answer", botSays(tg, "the second answer"))
	var texts []string
	firsts := 0
	for _, m := range tg.BotMessages(dm.ID) {
		texts = append(texts, m.Text)
		if strings.Contains(m.Text, "the first answer") {
			firsts++
		}
	}
	if firsts != 1 || strings.Contains(strings.Join(texts, "|"), "something went wrong") {
		t.Fatalf("bot messages %q; want the first answer once and no apology: it was delivered, its chat taken over", texts)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates where state = 'failed'`); n != 0 {
		t.Fatalf("%d updates failed; want none", n)
	}
}

func newest(history []ryo.Message) string {
	if len(history) == 0 {
		return ""
	}
	return history[len(history)-1].Text
}
