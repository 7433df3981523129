package memory_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A turn's answer is kept with what it cost and its trace, all of it or
// none: what it cost is counted once however often the turn runs.
func TestAnAnswerIsKeptWithItsUsageAndTraceAllOrNothing(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	chat := int64(7123456789)
	place := ryo.Place{ChatID: chat}
	store(t, db, memory.InboxUpdate{ID: 9000000011, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":9000000011}`)})
	answer := func(update int64, text string, tokens int64) memory.TurnAnswer {
		return memory.TurnAnswer{UpdateID: update, Place: place, Text: text, Metadata: json.RawMessage(`{"model":"m"}`),
			Usage: &memory.Usage{UpdateID: update, ChatID: chat, UserID: chat, Model: "m", PromptTokens: tokens, ModelTime: time.Second},
			Trace: &memory.Trace{UpdateID: update, ChatID: chat, AskerID: chat, Model: "m", Outcome: "answered", ReplyTokens: tokens}}
	}
	if err := db.SaveAnswered(c, answer(9000000011, "first", 10)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveAnswered(c, answer(9000000011, "again", 20)); err != nil { // the turn ran again after a crash
		t.Fatal(err)
	}
	if turn, _ := db.Turn(c, 9000000011); turn.Answer != "again" {
		t.Fatalf("Turn = %+v; want the answer of the second run", turn)
	}
	if n := memorytest.Count(t, url, `select count(*) from usage where update_id = 9000000011 and prompt_tokens = 10`); n != 1 {
		t.Fatalf("%d usage rows of the first run; want it counted once, as it was first", n)
	}
	if tr, ok, err := db.TraceOf(c, 9000000011); !ok || err != nil || tr.ReplyTokens != 20 {
		t.Fatalf("TraceOf = %+v, %v, %v; want the second run's trace", tr, ok, err)
	}
	// An update not in the inbox takes no answer: its usage and trace are not kept either.
	if err := db.SaveAnswered(c, answer(9000000012, "lost", 5)); err == nil {
		t.Fatal("SaveAnswered of an update not in the inbox succeeded")
	}
	if n := memorytest.Count(t, url, `select (select count(*) from usage where update_id = 9000000012)
		+ (select count(*) from turn_traces where update_id = 9000000012)`); n != 0 {
		t.Fatalf("%d rows kept of a failed answer; want none", n)
	}
}

// A replica that lost its chat to another keeps nothing of its turn's
// end; the one that holds the chat does, and tells the answer before it.
func TestFinishingATurnKeepsTheLeaseFence(t *testing.T) {
	a, b, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := group.ID
	place := ryo.Place{ChatID: chat}
	for _, id := range []int64{9000000021, 9000000022} {
		store(t, a, memory.InboxUpdate{ID: id, ChatID: chat, Kind: "message", Raw: []byte(`{}`)})
	}
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	msg := func(update int64, tg int, tags ...string) ryo.Message {
		return ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "answer", TelegramID: tg, UpdateID: update,
			Metadata: json.RawMessage(fmt.Sprintf(`{"buttons_on": %d}`, tg))}
	}
	say(t, a, place, 1, "hi")
	first, err := a.FinishAnswer(c, msg(9000000021, 11), []string{"x", "x", "y"})
	if err != nil || first.Answer.ID == 0 || first.Before.ID != 0 {
		t.Fatalf("r1 FinishAnswer = %+v, %v; want the answer stored, none before it", first, err)
	}
	if _, ok, err := a.ClaimUpdate(c, 9000000022); !ok || err != nil {
		t.Fatalf("r1 ClaimUpdate = %v, %v", ok, err)
	}
	if err := ra.ReleaseChat(c, chat); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, chat, true); !ok || err != nil {
		t.Fatalf("r2 TakeChat = %v, %v", ok, err)
	}
	if _, err := a.FinishAnswer(c, msg(9000000022, 12), []string{"z"}); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("r1 FinishAnswer after losing the chat = %v; want ErrLeaseLost", err)
	}
	if n := memorytest.Count(t, url, `select count(*) from messages where update_id = 9000000022`); n != 0 {
		t.Fatalf("%d answers kept by the replica that lost the chat; want none", n)
	}
	if state, _, _ := a.UpdateState(c, 9000000022); state != memory.StateProcessing {
		t.Fatalf("update state = %s; want it left to the replica that holds the chat", state)
	}
	second, err := b.FinishAnswer(c, msg(9000000022, 12), []string{"z"})
	if err != nil || second.Before.ID != first.Answer.ID || second.Before.UpdateID != 9000000021 ||
		string(second.Before.Metadata) != `{"buttons_on": 11}` {
		t.Fatalf("r2 FinishAnswer = %+v, %v; want the first answer before it", second, err)
	}
	if state, _, _ := b.UpdateState(c, 9000000022); state != memory.StateDone {
		t.Fatalf("update state = %s; want done", state)
	}
	again, err := a.FinishAnswer(c, msg(9000000022, 12), []string{"z"}) // finished already: nothing changes
	if err != nil || again.Answer.ID != second.Answer.ID {
		t.Fatalf("FinishAnswer of a finished update = %+v, %v; want the stored answer, no error", again, err)
	}
	if n := memorytest.Count(t, url, `select count(*) from message_tags where message_id = $1::bigint`, first.Answer.ID); n != 2 {
		t.Fatalf("%d tags on the first answer; want x and y", n)
	}
}

// A replica that lost its chat while it delivered, and comes to finish the
// update after the holder finished it with an answer of its own, keeps
// nothing: the history holds the one answer the update was finished with,
// not a second one of the same turn.
func TestFinishingATurnFinishedByTheChatsNewHolderKeepsNothing(t *testing.T) {
	a, b, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := group.ID
	place := ryo.Place{ChatID: chat}
	store(t, a, memory.InboxUpdate{ID: 9000000031, ChatID: chat, Kind: "message", Raw: []byte(`{}`)})
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	if _, ok, err := a.ClaimUpdate(c, 9000000031); !ok || err != nil {
		t.Fatalf("r1 ClaimUpdate = %v, %v", ok, err)
	}
	say(t, a, place, 1, "hi")
	if err := ra.ReleaseChat(c, chat); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, chat, true); !ok || err != nil {
		t.Fatalf("r2 TakeChat = %v, %v", ok, err)
	}
	answer := func(tg int) ryo.Message {
		return ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "answer", TelegramID: tg, UpdateID: 9000000031}
	}
	if _, err := b.FinishAnswer(c, answer(21), nil); err != nil {
		t.Fatalf("r2 FinishAnswer = %v", err)
	}
	if _, err := a.FinishAnswer(c, answer(22), nil); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("r1 FinishAnswer of the update r2 finished = %v; want ErrLeaseLost", err)
	}
	if n := memorytest.Count(t, url, `select count(*) from messages where update_id = 9000000031`); n != 1 {
		t.Fatalf("%d answers kept of one update; want the one it was finished with", n)
	}
	if again, err := b.FinishAnswer(c, answer(21), nil); err != nil || again.Answer.ID == 0 { // a retry of the holder's own
		t.Fatalf("r2 FinishAnswer again = %+v, %v; want its stored answer", again, err)
	}
}

// The same holds for an answer given again in place of an older one
// (🔄): the replica that lost the chat, finishing the press after the
// holder did, keeps no second new answer.
func TestReplacingAnAnswerFinishedByTheChatsNewHolderKeepsNothing(t *testing.T) {
	a, b, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := group.ID
	place := ryo.Place{ChatID: chat}
	say(t, a, place, 1, "hi")
	old, err := a.SaveAnswer(c, ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "old", TelegramID: 2, UpdateID: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store(t, a, memory.InboxUpdate{ID: 9000000041, ChatID: chat, Kind: "callback_query", Raw: []byte(`{}`)})
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	if _, ok, err := a.ClaimUpdate(c, 9000000041); !ok || err != nil {
		t.Fatalf("r1 ClaimUpdate = %v, %v", ok, err)
	}
	if err := ra.ReleaseChat(c, chat); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, chat, true); !ok || err != nil {
		t.Fatalf("r2 TakeChat = %v, %v", ok, err)
	}
	answer := func(tg int) ryo.Message {
		return ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: "new", TelegramID: tg, ReplyTo: 1, UpdateID: 9000000041}
	}
	if _, err := b.FinishReplacing(c, answer(3), nil, old); err != nil {
		t.Fatalf("r2 FinishReplacing = %v", err)
	}
	if _, err := a.FinishReplacing(c, answer(4), nil, old); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("r1 FinishReplacing of the press r2 finished = %v; want ErrLeaseLost", err)
	}
	if n := memorytest.Count(t, url, `select count(*) from messages where update_id = 9000000041`); n != 1 {
		t.Fatalf("%d new answers kept of one press; want the one it was finished with", n)
	}
	if _, err := b.FinishReplacing(c, answer(3), nil, old); err != nil { // a retry of the holder's own
		t.Fatalf("r2 FinishReplacing again = %v", err)
	}
}
