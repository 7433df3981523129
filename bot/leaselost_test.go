package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A replica whose chat another live replica took over while its turn ran
// delivers the answer it had kept, but cannot finish the update: the
// holder does. It must not tell the person that something went wrong —
// nothing did, and the holder goes on with the turn — nor mark the update
// failed. Once the chat comes back, the turn is finished without sending
// its answer again, and the next message is answered.
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
