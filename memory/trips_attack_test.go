package memory_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// Two people who swap usernames in turns that run at the same time end with
// each other's names, whoever's turn waits for whose: no error reaches the
// turns, and no name is held twice.
func TestTwoPeopleSwappingUsernamesAtOnce(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	a := ryo.User{ID: 1<<40 + 1, FirstName: "A"}
	b := ryo.User{ID: 1<<40 + 2, FirstName: "B"}
	names := [2]string{"Swap_One", "swap_two"}
	at := time.Now().Add(-time.Hour)
	for round := range 20 {
		at = at.Add(time.Second)
		a.Username, a.Seen = names[round%2], at
		b.Username, b.Seen = names[(round+1)%2], at
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, u := range []ryo.User{a, b} {
			wg.Go(func() {
				if round%3 == 0 {
					_, errs[i] = db.SaveUser(c, u, false)
					return
				}
				uu := u
				_, errs[i] = db.SaveUserMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID}, Sender: &uu,
					Kind: ryo.KindUser, Text: "hi", TelegramID: round*2 + i + 1, UpdateID: int64(1<<33 + round*2 + i)})
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		for _, u := range []ryo.User{a, b} {
			if n := memorytest.Count(t, url, `select count(*) from users where id = $1::bigint and username = $2`, u.ID, u.Username); n != 1 {
				t.Fatalf("round %d: %d has not the name %q", round, u.ID, u.Username)
			}
		}
		if n := memorytest.Count(t, url, `select count(*) from users where username <> ''`); n != 2 {
			t.Fatalf("round %d: %d usernames held", round, n)
		}
	}
}

// Names and titles as Telegram may send them — NUL, bytes that are not
// UTF-8, right-to-left marks — are stored like message text, not refused.
func TestOddBytesInNamesAndTitlesAreStored(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	odd := "a\x00b\xff\u202e\U0001F600"
	u := ryo.User{ID: 1<<32 + 77, FirstName: odd, LastName: odd, Username: "o\x00dd", LanguageCode: "e\x00n"}
	chat := ryo.Chat{ID: -1009999999999, Type: ryo.ChatSupergroup, Title: odd, Username: "c\x00h"}
	if _, err := db.SaveUser(c, u, true); err != nil {
		t.Fatalf("SaveUser with odd bytes: %v", err)
	}
	if err := db.SaveChat(c, chat); err != nil {
		t.Fatalf("SaveChat with odd bytes: %v", err)
	}
	m, err := db.SaveUserMessage(c, chat, ryo.Message{Place: ryo.Place{ChatID: chat.ID, Thread: 1 << 31}, Sender: &u,
		Kind: ryo.KindUser, Text: odd, TelegramID: 1, UpdateID: 1<<33 + 1})
	if err != nil {
		t.Fatalf("SaveUserMessage with odd bytes: %v", err)
	}
	h, err := db.History(c, m.Place, 10)
	if err != nil || len(h) != 1 || h[0].Sender == nil || h[0].Sender.ID != u.ID {
		t.Fatalf("History = %+v, %v", h, err)
	}
}

// Two replicas taking one chat at the same moment: exactly one takes it,
// and only it is told the chat's updates.
func TestTwoReplicasTakingOneChatAtOnce(t *testing.T) {
	a, _, ra, rb, _ := twoReplicas(t)
	c := ctx(t)
	for i := range 30 {
		chat := int64(-1001000000000 - i)
		store(t, a, memory.InboxUpdate{ID: int64(9100000000 + i), ChatID: chat, Kind: "message", Raw: []byte(`{}`)})
		var wg sync.WaitGroup
		oks := make([]bool, 2)
		told := make([]int, 2)
		errs := make([]error, 2)
		for j, r := range []*memory.Replica{ra, rb} {
			wg.Go(func() {
				var w []memory.InboxUpdate
				oks[j], _, w, errs[j] = r.TakeChatWaiting(c, chat, i%2 == 0)
				told[j] = len(w)
			})
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil || oks[0] == oks[1] {
			t.Fatalf("chat %d: took %v, errors %v", chat, oks, errs)
		}
		for j := range 2 {
			if oks[j] != (told[j] == 1) {
				t.Fatalf("chat %d: replica %d took it %v and was told %d updates", chat, j, oks[j], told[j])
			}
		}
	}
}

// A batch of updates whose connection is cut while PostgreSQL runs it
// keeps none of them; stored again, each is there once.
func TestUpdatesCutOffMidBatchAreStoredOnceAgain(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	chat := int64(-1001111111111)
	batch := []memory.InboxUpdate{
		{ID: 1<<33 + 1, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":1}`)},
		{ID: 1<<33 + 2, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":2}`)},
		{ID: 1<<33 + 3, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":3}`)},
	}
	// Another transaction inserts the second update and waits: the batch
	// stops on it, with the first inserted.
	blocker, err := pgx.Connect(c, url)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close(context.Background())
	tx, err := blocker.Begin(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(c, `insert into updates (update_id, chat_id, kind, raw, received_at) values ($1::bigint, $2::bigint, 'message', '{}', now())`,
		batch[1].ID, chat); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.StoreUpdates(c, batch)
		done <- err
	}()
	var pid int
	for pid == 0 {
		err := tx.QueryRow(c, `select coalesce((select pid from pg_stat_activity where wait_event_type = 'Lock'
			and query like 'insert into updates%' and pid <> pg_backend_pid() limit 1), 0)`).Scan(&pid)
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(c, `select pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("StoreUpdates cut off = nil; want an error")
	}
	if err := tx.Rollback(c); err != nil {
		t.Fatal(err)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates`); n != 0 {
		t.Fatalf("%d updates kept of a batch cut off", n)
	}
	if refused, err := db.StoreUpdates(c, batch); err != nil || len(refused) > 0 {
		t.Fatalf("StoreUpdates again = %v, %v", refused, err)
	}
	if refused, err := db.StoreUpdates(c, batch); err != nil || len(refused) > 0 {
		t.Fatalf("StoreUpdates a third time = %v, %v", refused, err)
	}
	if n := memorytest.Count(t, url, `select count(*) from updates`); n != 3 {
		t.Fatalf("%d updates stored; want 3", n)
	}
}

// The window History keeps is the one the rule in Go kept, for every count
// and limit.
func TestHistoryWindowAsBefore(t *testing.T) {
	db := memorytest.Open(t)
	place := ryo.Place{ChatID: group.ID, Thread: 1<<31 + 5}
	old := func(total, limit int) int {
		if total <= limit {
			return total
		}
		step := max(limit/2, 1)
		return total - (total-limit+step-1)/step*step
	}
	for i := 1; i <= 25; i++ {
		say(t, db, place, 1000+i, fmt.Sprint(i))
		for limit := 0; limit <= 12; limit++ {
			h, err := db.History(ctx(t), place, limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(h) != old(i, limit) {
				t.Fatalf("%d messages, limit %d: %d kept; before %d", i, limit, len(h), old(i, limit))
			}
		}
	}
}

// The updates stored one by one, past one the inbox refused, are announced
// to the other replicas as a batch stored at once is: a chat whose home is
// another replica does not wait for the sweep because a stranger's update
// came in the same batch.
func TestUpdatesStoredPastAPoisonedOneAreAnnounced(t *testing.T) {
	a, _, _, rb, url := twoReplicas(t)
	refusePoison(t, url)
	chat, other := int64(-1009876543211), int64(-1009876543212)
	refused, err := a.StoreUpdates(ctx(t), []memory.InboxUpdate{
		update(1<<33+21, other, `{"update_id":8589934613,"message":{"text":"poison"}}`),
		update(1<<33+22, chat, `{"update_id":8589934614,"message":{"text":"hi"}}`),
	})
	if err != nil || len(refused) != 1 {
		t.Fatalf("StoreUpdates = %+v, %v; want the poisoned update refused", refused, err)
	}
	c, cancel := context.WithTimeout(ctx(t), 5*time.Second)
	defer cancel()
	got, err := rb.Wait(c)
	if err != nil || len(got) != 1 || got[0].Chat != chat {
		t.Fatalf("r2 heard %+v, %v; want chat %d", got, err, chat)
	}
}

// Many messages of one chat stored at once, their senders all claiming one
// username, each seen with it at another time: all are stored, and the
// name ends with whoever was seen with it last, whatever the order.
func TestManyMessagesOfOneChatClaimingOneName(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	const n = 12
	base := time.Now().Add(-time.Hour)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			u := ryo.User{ID: 1<<41 + int64(i), FirstName: "P", Username: "Shared_Name", Seen: base.Add(time.Duration((i*7)%n) * time.Second)}
			_, errs[i] = db.SaveUserMessage(c, group, ryo.Message{Place: ryo.Place{ChatID: group.ID, Thread: i % 3}, Sender: &u,
				Kind: ryo.KindUser, Text: "hi", TelegramID: 500 + i, UpdateID: 1<<34 + int64(i)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if n := memorytest.Count(t, url, `select count(*) from messages`); n != 12 {
		t.Fatalf("%d messages stored", n)
	}
	last := -1
	for i := range n {
		if (i*7)%n == n-1 {
			last = i
		}
	}
	if got := memorytest.Count(t, url, `select count(*) from users where username = 'Shared_Name' and id = $1::bigint`, int64(1<<41+last)); got != 1 ||
		memorytest.Count(t, url, `select count(*) from users where username <> ''`) != 1 {
		t.Fatalf("the name is not held by the one seen with it last alone")
	}
}

// A batch with updates of every odd shape — a NUL byte raw, no JSON at
// all, JSON that is no object, a truncated one — stores the good ones
// once, buries the rest once, however often Telegram sends it again.
func TestABatchOfOddShapesStoresTheGoodOnesOnce(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	chat := int64(-1002222222222)
	batch := []memory.InboxUpdate{
		update(1<<33+31, chat, `{"update_id":8589934623,"message":{"text":"ok"}}`),
		update(1<<33+32, chat, "{\"update_id\":8589934624,\"message\":{\"text\":\"a\x00b\"}}"),
		update(1<<33+33, chat, ``),
		update(1<<33+34, chat, `null`),
		update(1<<33+35, chat, `[1,"\u0000",{"\ud800":1}]`),
		update(1<<33+36, chat, `{"update_id":`),
		update(1<<33+37, 0, "\xff\xfe{}"),
		update(1<<33+31, chat, `{"update_id":8589934623,"message":{"text":"again in the same batch"}}`),
	}
	var firsts int
	for round := range 3 {
		refused, err := db.StoreUpdates(ctx(t), batch)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, r := range refused {
			if r.First {
				firsts++
			}
		}
		stored := memorytest.Count(t, url, `select count(*) from updates`)
		if stored+len(refused) != len(batch)-1 {
			t.Fatalf("round %d: %d stored, %d refused of %d", round, stored, len(refused), len(batch)-1)
		}
		if n := memorytest.Count(t, url, `select count(*) from updates where update_id = $1::bigint and raw -> 'message' ->> 'text' = 'ok'`, int64(1<<33+31)); n != 1 {
			t.Fatalf("round %d: the good update stored %d times, or overwritten", round, n)
		}
	}
	if n := memorytest.Count(t, url, `select count(*) from dead_letters`); n != firsts {
		t.Fatalf("%d in the dead letter, %d refused first", n, firsts)
	}
}

// Turns of one person in one place taking their chosen tool at the same
// moment, some of them just as it lapses: one takes it at most, and a
// turn that took it before the lapse keeps it while its update runs.
func TestTurnsTakingOneForcedToolAtOnce(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	person := int64(1<<42 + 9)
	place := ryo.Place{ChatID: -1003333333333, Thread: 1<<31 + 1}
	if _, err := db.SaveUser(c, ryo.User{ID: person, FirstName: "P"}, true); err != nil {
		t.Fatal(err)
	}
	const n = 8
	for i := range n {
		id := int64(1<<35 + i)
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{update(id, place.ChatID, fmt.Sprintf(`{"update_id":%d}`, id))}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range n - 2 { // each round another turn takes the tool chosen anew
		if err := db.ForceTool(c, person, place, fmt.Sprint("tool", round), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		got := make([]string, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { got[i], errs[i] = db.TakeForcedTool(c, person, place, int64(1<<35+i)) })
		}
		wg.Wait()
		took := -1
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if got[i] == fmt.Sprint("tool", round) { // a turn that took a tool before keeps it
				if took >= 0 {
					t.Fatalf("round %d: turns %d and %d both took the tool", round, took, i)
				}
				took = i
			}
		}
		if took < 0 {
			t.Fatalf("round %d: no turn took the tool", round)
		}
		if again, err := db.TakeForcedTool(c, person, place, int64(1<<35+took)); err != nil || again != got[took] {
			t.Fatalf("round %d: the turn that took %q takes %q again, %v", round, got[took], again, err)
		}
	}
}

// A turn that took the tool its person chose, cut short after the person
// chose another for their next message, runs again with the tool it began
// with; the new choice waits for the message after, as it would had the
// turn not been cut short.
func TestAToolChosenAgainWhileATurnRunsWaitsForTheNextMessageEvenWhenTheTurnRunsAgain(t *testing.T) {
	db := memorytest.Open(t)
	c := ctx(t)
	person := int64(1<<42 + 11)
	place := ryo.Place{ChatID: -1004444444444, Thread: 2}
	if _, err := db.SaveUser(c, ryo.User{ID: person, FirstName: "P"}, true); err != nil {
		t.Fatal(err)
	}
	const turn, next = 1<<36 + 1, 1<<36 + 2
	for _, id := range []int64{turn, next} {
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{update(id, place.ChatID, fmt.Sprintf(`{"update_id":%d}`, id))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.ForceTool(c, person, place, "statistics", time.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if tool, err := db.TakeForcedTool(c, person, place, turn); err != nil || tool != "statistics" {
		t.Fatalf("TakeForcedTool = %q, %v", tool, err)
	}
	if err := db.ForceTool(c, person, place, "finance", time.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The turn is cut short, and runs again.
	if tool, err := db.TakeForcedTool(c, person, place, turn); err != nil || tool != "statistics" {
		t.Fatalf("the turn run again took %q, %v; want statistics, as it began", tool, err)
	}
	if err := db.SaveTurnAnswer(c, turn, place, "The mean is 15.4.", nil); err != nil {
		t.Fatal(err)
	}
	if tool, err := db.TakeForcedTool(c, person, place, next); err != nil || tool != "finance" {
		t.Fatalf("the next message took %q, %v; want finance", tool, err)
	}
}

// Choosing a tool while turns take the one chosen before: no error, and
// never two choices waiting in one place.
func TestChoosingAToolWhileTurnsTakeIt(t *testing.T) {
	url := memorytest.URL(t)
	db := memorytest.OpenURL(t, url)
	c := ctx(t)
	person := int64(1<<42 + 13)
	place := ryo.Place{ChatID: -1005555555555}
	if _, err := db.SaveUser(c, ryo.User{ID: person, FirstName: "P"}, true); err != nil {
		t.Fatal(err)
	}
	for round := range 20 {
		id := int64(1<<37 + round)
		if _, err := db.StoreUpdates(c, []memory.InboxUpdate{update(id, place.ChatID, fmt.Sprintf(`{"update_id":%d}`, id))}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 3)
		wg.Go(func() { errs[0] = db.ForceTool(c, person, place, fmt.Sprint("a", round), time.Now().Add(time.Hour)) })
		wg.Go(func() { errs[1] = db.ForceTool(c, person, place, fmt.Sprint("b", round), time.Now().Add(time.Hour)) })
		wg.Go(func() { _, errs[2] = db.TakeForcedTool(c, person, place, id) })
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if n := memorytest.Count(t, url, `select count(*) from forced_tools where used_by is null`); n > 1 {
			t.Fatalf("round %d: %d choices waiting", round, n)
		}
		if err := db.FinishUpdate(c, id, memory.StateDone, ""); err != nil {
			t.Fatal(err)
		}
	}
}
