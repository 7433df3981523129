package bot_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// A forged "Next ▶" whose page number would overflow when multiplied by
// the page size is a button that no longer works: answered, nothing run,
// nothing buried in the dead letter.
func TestForgedPageNumberIsAStaleButton(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	ctx := context.Background()
	for i := range 12 { // more than one page of people
		if _, err := db.SaveUser(ctx, ryo.User{ID: 7_100_000_000 + int64(i), FirstName: fmt.Sprintf("Person %d", i)}, false); err != nil {
			t.Fatal(err)
		}
	}
	runWith(t, tg, db, echo(), func(c *bot.Config) { c.AdminIDs = []int64{alice.ID} })
	tg.SendText(dm, alice, "/users")
	var list telegramtest.Message
	waitFor(t, tg, "the paged list of people", func() bool {
		for _, m := range tg.BotMessages(dm.ID) {
			if len(m.Buttons()) > 0 {
				list = m
				return true
			}
		}
		return false
	})
	next := list.Buttons()[0][0].Data // pg:<view>:1
	for _, page := range []string{"922337203685477581", "9223372036854775807", "-1", "1e3", ""} {
		forged := next[:strings.LastIndex(next, ":")+1] + page
		query := tg.PressForged(dm.ID, alice, list.ID, forged)
		var answer telegramtest.CallbackAnswer
		waitFor(t, tg, "the forged press answered", func() bool {
			var ok bool
			answer, ok = tg.CallbackAnswer(query)
			return ok
		})
		if answer.Text != "This button no longer works." {
			t.Errorf("page %q answered %q; want a stale button", page, answer.Text)
		}
	}
	if dead, err := db.DeadCount(ctx); err != nil || dead > 0 {
		t.Fatalf("%d dead letters (%v); want none", dead, err)
	}
}

// Presses have slots of their own: while every worker waits on a slow
// model (one worker here), a press is still answered at once. Telegram
// drops a press not answered within seconds, so a press that waited for a
// model call would never be answered.
func TestPressIsAnsweredWhileWorkersWaitOnTheModel(t *testing.T) {
	tg, db := newTelegram(t, false), memorytest.Open(t)
	bob := telegramtest.NewUser("Bob", "")
	bobDM := telegramtest.PrivateChat(bob)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	runWith(t, tg, db, answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
			return agent.Output{}, ctx.Err()
		}
		return agent.Output{Text: "a slow answer"}, nil
	}), func(c *bot.Config) { c.Workers = 1 })
	tg.SendText(dm, alice, "think hard about this")
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the model was never asked")
	}
	query := tg.PressForged(bobDM.ID, bob, 4242, "pg:gone:1")
	waitFor(t, tg, "Bob's press answered while the model holds the only worker", func() bool {
		_, ok := tg.CallbackAnswer(query)
		return ok
	})
	once.Do(func() { close(release) })
	waitFor(t, tg, "the slow answer", botSays(tg, "a slow answer"))
}
