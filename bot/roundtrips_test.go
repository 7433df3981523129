package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// maxTurnTrips is the most round trips to PostgreSQL a plain turn may
// make. Each is a statement PostgreSQL parses and runs, a write and a read
// for ryo, and two wake-ups on each side: at a few hundred turns a second
// they are most of what a turn costs both (make capacity).
const maxTurnTrips = 11

// A plain turn — a person's message in a private chat, answered in one
// message — makes no more than maxTurnTrips round trips to the database,
// from the moment the update is stored to the moment its chat is let go.
func TestAPlainTurnMakesFewRoundTrips(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	db, check := memorytest.OpenWatched(t, url)
	run(t, tg, db, answerFunc(func(context.Context, agent.Input) (agent.Output, error) {
		return agent.Output{Text: "fine"}, nil
	}), 5)
	answers := func(n int) func() bool { return func() bool { return len(tg.BotMessages(dm.ID)) >= n } }
	settled := func() bool { // every update done, and the chat let go
		return memorytest.Count(t, url, `select count(*) from updates where state not in ('done', 'failed')`) == 0 &&
			memorytest.Count(t, url, `select count(*) from chat_leases where until > now()`) == 0
	}
	tg.SendText(dm, alice, "first") // the first turn also meets the person and the chat
	waitFor(t, tg, "the first answer", answers(1))
	waitFor(t, tg, "the first turn settled", settled)

	check.Record()
	tg.SendText(dm, alice, "second")
	waitFor(t, tg, "the second answer", answers(2))
	waitFor(t, tg, "the second turn settled", settled)
	var trips []string
	for _, trip := range check.Recorded() {
		// The replica's heartbeat and its sweep of the inbox run every
		// second, whatever the turns.
		if !strings.HasPrefix(trip, "with seen as (update replicas") && !strings.HasPrefix(trip, "select c.chat, greatest(") {
			trips = append(trips, trip)
		}
	}
	t.Logf("%d round trips:\n%s", len(trips), strings.Join(trips, "\n"))
	if len(trips) > maxTurnTrips {
		t.Errorf("a plain turn made %d round trips to the database; at most %d are allowed:\n%s",
			len(trips), maxTurnTrips, strings.Join(trips, "\n"))
	}
}
