package bot_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// callsIn counts the Telegram calls the bot made for chat.
func callsIn(tg *telegramtest.Server, chat int64) int {
	n := 0
	for _, c := range tg.Calls("") {
		if c.Params["chat_id"] == fmt.Sprint(chat) {
			n++
		}
	}
	return n
}

// A confirmed action's tool running when its chat is taken over runs to
// its end, its result is kept once, and then the conversation is called
// off here: the model is not asked to go on, and nothing more is sent or
// edited in the chat the other replica answers in.
func TestAShieldedToolsConversationIsCalledOffOnceTheToolReturns(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	memorytest.OpenURL(t, url)
	replicaAliveElsewhere(t, url, 47)
	var mu sync.Mutex
	asked, callsAtReturn := 0, -1
	tools := shredTool(t, func(ctx context.Context, _ string) (any, error) {
		takeOver(t, url, ops.ID)
		waitForBeats(t, tg, url, "replica-here", 2)
		mu.Lock()
		callsAtReturn = callsIn(tg, ops.ID)
		mu.Unlock()
		return map[string]any{"shredded": "payroll-2026.csv"}, nil
	})
	logs := runReplicaWith(t, tg, url, "replica-here", answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		mu.Lock()
		asked++
		n := asked
		mu.Unlock()
		if n == 1 {
			return askToShred(in), nil
		}
		return agent.Output{Text: "Shredded."}, nil
	}), tools)
	waitFor(t, tg, "a heartbeat that sees the other replica", func() bool { return lastBeat(t, url, "replica-here") != "" })
	tg.SendText(ops, alice, "@ryo_test_bot shred the old payroll export")
	prompt, yes := confirmationPrompt(t, tg, ops.ID)
	if _, err := tg.Press(ops.ID, alice, prompt.ID, yes); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the action to end", func() bool {
		return memorytest.Count(t, url, `select count(*) from actions where state in ('executed', 'interrupted')`) == 1
	})
	waitFor(t, tg, "the press's conversation to be called off here", func() bool {
		return strings.Count(logs.String(), "another replica took this update's chat over while it ran") >= 1
	})
	if n := memorytest.Count(t, url, `select count(*) from actions where state = 'executed'`); n != 1 {
		t.Errorf("%d actions executed; want 1", n)
	}
	if n := memorytest.Count(t, url, `select count(*) from messages where kind = 'tool_result'`); n != 1 {
		t.Errorf("%d tool results stored; want the action's result stored once", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Errorf("the model was asked %d times; want once (the conversation called off once the tool returned)", asked)
	}
	if after := callsIn(tg, ops.ID); after != callsAtReturn {
		t.Errorf("%d Telegram calls for the chat after the tool returned; want none", after-callsAtReturn)
	}
	if saidIn(tg, ops.ID, "Shredded.") != 0 {
		t.Error("the replica that lost the chat answered in it")
	}
	if t.Failed() {
		t.Logf("%s", logs.String())
	}
}

// A confirmed action whose chat is taken over while it is being marked
// running — the mark committed, read before the other replica's take —
// has its tool run to its end here once it is marked: it is running here,
// and nobody else will run it. Called off before its tool starts, the tool
// is cut short and the action is left running, its outcome unknown, for
// the person to be asked again.
func TestAnActionTakenOverWhileItIsMarkedRunningRunsItsToolToItsEnd(t *testing.T) {
	url := memorytest.URL(t)
	tg := newTelegram(t, false)
	ctx := context.Background()
	memorytest.OpenURL(t, url)
	const hold = 738041441401 // holds the marking of the action, in its transaction, once its lease was read
	other := replicaAliveElsewhere(t, url, 48)
	if _, err := other.Exec(ctx, fmt.Sprintf(`select pg_advisory_lock(%d)`, hold)); err != nil {
		t.Fatal(err)
	}
	memorytest.Exec(t, url, fmt.Sprintf(`create function hold_start() returns trigger language plpgsql as $$
		begin perform pg_advisory_xact_lock(%d); return new; end $$;
		create trigger hold_start after update on actions for each row when (old.state = 'confirmed' and new.state = 'running') execute function hold_start()`, hold))
	cutShort := make(chan bool, 1)
	tools := shredTool(t, func(ctx context.Context, _ string) (any, error) {
		cutShort <- ctx.Err() != nil
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return map[string]any{"shredded": "payroll-2026.csv"}, nil
	})
	logs := runReplicaWith(t, tg, url, "replica-here", answerFunc(func(ctx context.Context, in agent.Input) (agent.Output, error) {
		return askToShred(in), nil
	}), tools)
	waitFor(t, tg, "a heartbeat that sees the other replica", func() bool { return lastBeat(t, url, "replica-here") != "" })
	tg.SendText(ops, alice, "@ryo_test_bot shred the old payroll export")
	prompt, yes := confirmationPrompt(t, tg, ops.ID)
	if _, err := tg.Press(ops.ID, alice, prompt.ID, yes); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tg, "the action's marking to have read its lease", func() bool {
		return memorytest.Count(t, url, `select count(*) from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'
			and query like '%update actions set state = ''running''%'`) == 1
	})
	takeOver(t, url, ops.ID)
	waitForBeats(t, tg, url, "replica-here", 2) // the first finds the chat taken; the second comes after its findings were acted on
	if _, err := other.Exec(ctx, fmt.Sprintf(`select pg_advisory_unlock(%d)`, hold)); err != nil {
		t.Fatal(err)
	}
	select {
	case cut := <-cutShort:
		if cut {
			t.Error("the tool of the action marked running here was cut short")
		}
	case <-time.After(20 * time.Second):
		t.Error("the tool of the action marked running here never ran")
	}
	waitFor(t, tg, "the action to end", func() bool {
		return memorytest.Count(t, url, `select count(*) from actions where state in ('executed', 'interrupted')`) == 1
	})
	if n := memorytest.Count(t, url, `select count(*) from actions where state = 'executed'`); n != 1 {
		t.Errorf("%d actions executed; want 1", n)
	}
	if t.Failed() {
		t.Logf("%s", logs.String())
	}
}
