package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// twoReplicas returns two processes' stores on one schema, each joined as
// a replica, and the schema's URL.
func twoReplicas(t *testing.T) (a, b *memory.DB, ra, rb *memory.Replica, url string) {
	t.Helper()
	url = memorytest.URL(t)
	a, b = memorytest.OpenURL(t, url), memorytest.OpenURL(t, url)
	ra, err := a.Join(ctx(t), "r1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ra.Leave(context.Background()) })
	rb, err = b.Join(ctx(t), "r2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rb.Leave(context.Background()) })
	return a, b, ra, rb, url
}

func TestOnlyTheChatsHolderClaimsAndFinishesItsUpdates(t *testing.T) {
	a, b, ra, rb, _ := twoReplicas(t)
	c := ctx(t)
	chat := int64(-1001234567890)
	store(t, a, memory.InboxUpdate{ID: 9000000001, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":9000000001}`)})
	if ok, last, err := ra.TakeChat(c, chat, false); !ok || last.From != "" || err != nil {
		t.Fatalf("r1 TakeChat = %v, %+v, %v; want the free chat", ok, last, err)
	}
	if ok, _, err := rb.TakeChat(c, chat, true); ok || err != nil {
		t.Fatalf("r2 TakeChat = %v, %v; want it refused while r1 lives and holds it", ok, err)
	}
	if _, ok, err := b.ClaimUpdate(c, 9000000001); ok || err != nil {
		t.Fatalf("r2 ClaimUpdate = %v, %v; want it fenced off", ok, err)
	}
	if _, ok, err := a.ClaimUpdate(c, 9000000001); !ok || err != nil {
		t.Fatalf("r1 ClaimUpdate = %v, %v", ok, err)
	}
	if err := ra.ReleaseChat(c, chat); err != nil {
		t.Fatal(err)
	}
	if _, err := ra.Beat(c); err != nil { // renews what r1 holds, not what it let go
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, chat, false); ok || err != nil {
		t.Fatalf("r2 TakeChat unforced right after r1 let it go = %v, %v; want it left to r1", ok, err)
	}
	if ok, last, err := rb.TakeChat(c, chat, true); !ok || last.From != "r1" || last.Idle <= 0 || last.Idle > time.Second || err != nil {
		t.Fatalf("r2 TakeChat after the release = %v, %+v, %v; want it, from r1, let go a moment ago", ok, last, err)
	}
	if err := a.FinishUpdate(c, 9000000001, memory.StateDone, ""); !errors.Is(err, memory.ErrLeaseLost) {
		t.Fatalf("r1 FinishUpdate after losing the chat = %v; want ErrLeaseLost", err)
	}
	if err := b.FinishUpdate(c, 9000000001, memory.StateDone, ""); err != nil {
		t.Fatal(err)
	}
	if err := a.FinishUpdate(c, 9000000001, memory.StateDone, ""); err != nil {
		t.Fatalf("FinishUpdate of a finished update = %v; want nothing done, no error", err)
	}
}

func TestAGoneReplicasChatsAreTakenAtOnce(t *testing.T) {
	_, _, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := int64(7123456789)
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	// r1 beats with r2 there, as it does every second: r2's connection,
	// older than that beat, shows no restart came since.
	if _, err := ra.Beat(c); err != nil {
		t.Fatal(err)
	}
	// r1's connection drops, as when its process is killed.
	cutReplica(t, url, "r1")
	if ok, _, err := rb.TakeChat(c, chat, true); ok || err != nil {
		t.Fatalf("r2 TakeChat right after r1's connection dropped = %v, %v; want it left to r1 for two seconds", ok, err)
	}
	// Two seconds without a renewal: r1 is gone, with seconds left on its lease.
	memorytest.Exec(t, url, `update chat_leases set until = until - interval '2 seconds' where replica = 'r1'`)
	if ok, last, err := rb.TakeChat(c, chat, false); !ok || last.From != "r1" || last.Idle != 0 || err != nil {
		t.Fatalf("r2 TakeChat = %v, %+v, %v; want the chat of the gone r1, its lease not run out", ok, last, err)
	}
	if chats, err := rb.Claimable(c, 10); err != nil || len(chats) != 0 {
		t.Fatalf("Claimable = %v, %v; want none (nothing waits)", chats, err)
	}
	if _, err := ra.Beat(c); err == nil {
		t.Fatal("r1 Beat on its dropped connection succeeded")
	}
	if err := ra.Reconnect(c); err != nil {
		t.Fatal(err)
	}
	if live, err := ra.Beat(c); len(live) != 2 || err != nil {
		t.Fatalf("Beat after Reconnect = %v, %v; want 2 replicas", live, err)
	}
}

func TestOneReplicaLeads(t *testing.T) {
	_, _, ra, rb, _ := twoReplicas(t)
	c := ctx(t)
	if ok, err := ra.TryLead(c); !ok || err != nil {
		t.Fatalf("r1 TryLead = %v, %v", ok, err)
	}
	if ok, err := rb.TryLead(c); ok || err != nil {
		t.Fatalf("r2 TryLead = %v, %v; want no while r1 leads", ok, err)
	}
	ra.Resign(c)
	if ok, err := rb.TryLead(c); !ok || err != nil {
		t.Fatalf("r2 TryLead after r1 resigned = %v, %v", ok, err)
	}
}

// Taking a chat and letting it go each tell, in the same round trip, the
// chat's updates waiting: to the replica that took it, and only to it.
func TestTakingAndLettingGoOfAChatTellItsUpdatesWaiting(t *testing.T) {
	a, _, ra, rb, _ := twoReplicas(t)
	c := ctx(t)
	chat, other := int64(-1001234567891), int64(7123456789)
	store(t, a, memory.InboxUpdate{ID: 9000000012, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":9000000012}`)})
	store(t, a, memory.InboxUpdate{ID: 9000000011, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":9000000011}`)})
	store(t, a, memory.InboxUpdate{ID: 9000000013, ChatID: other, Kind: "message", Raw: []byte(`{"update_id":9000000013}`)})
	ok, last, waiting, err := ra.TakeChatWaiting(c, chat, false)
	if !ok || last.From != "" || err != nil || ids(waiting) != "9000000011,9000000012" || string(waiting[0].Raw) != `{"update_id": 9000000011}` {
		t.Fatalf("r1 TakeChatWaiting = %v, %+v, %s, %v; want the chat and its two updates, oldest first", ok, last, ids(waiting), err)
	}
	if ok, _, waiting, err := rb.TakeChatWaiting(c, chat, true); ok || len(waiting) > 0 || err != nil {
		t.Fatalf("r2 TakeChatWaiting = %v, %s, %v; want it refused, and nothing told", ok, ids(waiting), err)
	}
	if _, ok, err := a.ClaimUpdate(c, 9000000011); !ok || err != nil {
		t.Fatalf("r1 ClaimUpdate = %v, %v", ok, err)
	}
	if err := a.FinishUpdate(c, 9000000011, memory.StateDone, ""); err != nil {
		t.Fatal(err)
	}
	waiting, err = ra.ReleaseChatWaiting(c, chat)
	if err != nil || ids(waiting) != "9000000012" {
		t.Fatalf("r1 ReleaseChatWaiting = %s, %v; want the update still waiting", ids(waiting), err)
	}
	if holder, err := a.ChatHolder(c, chat); holder != "" || err != nil {
		t.Fatalf("ChatHolder after the release = %q, %v; want none", holder, err)
	}
	if ok, last, waiting, err := rb.TakeChatWaiting(c, chat, true); !ok || last.From != "r1" || ids(waiting) != "9000000012" || err != nil {
		t.Fatalf("r2 TakeChatWaiting forced = %v, %+v, %s, %v; want the chat from r1, with its update waiting", ok, last, ids(waiting), err)
	}
}

func TestAStoredUpdateIsAnnouncedToTheOtherReplicas(t *testing.T) {
	a, _, ra, rb, _ := twoReplicas(t)
	chat := int64(-1009876543210)
	store(t, a, memory.InboxUpdate{ID: 9000000002, ChatID: chat, Kind: "message", Raw: []byte(`{"update_id":9000000002}`)})
	c, cancel := context.WithTimeout(ctx(t), 10*time.Second)
	defer cancel()
	got, err := rb.Wait(c)
	if err != nil || len(got) != 1 || got[0].Chat != chat {
		t.Fatalf("r2 heard %+v, %v; want chat %d", got, err, chat)
	}
	short, cancelShort := context.WithTimeout(ctx(t), 50*time.Millisecond)
	defer cancelShort()
	if got, err := ra.Wait(short); len(got) != 0 || err != nil {
		t.Fatalf("r1 heard its own announcement: %+v, %v", got, err)
	}
}

func store(t *testing.T, db *memory.DB, u memory.InboxUpdate) {
	t.Helper()
	if refused, err := db.StoreUpdates(ctx(t), []memory.InboxUpdate{u}); err != nil || len(refused) > 0 {
		t.Fatalf("StoreUpdates = %+v, %v", refused, err)
	}
}

// Two processes started with the same RYO_REPLICA_ID — a compose file
// copied for a second service — must not both hold a chat under one name:
// each would claim and finish its updates, and answer them twice.
func TestASecondReplicaWithALiveReplicasNameIsRefused(t *testing.T) {
	url := memorytest.URL(t)
	a, b := memorytest.OpenURL(t, url), memorytest.OpenURL(t, url)
	c := ctx(t)
	ra, err := a.Join(c, "web-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ra.Leave(context.Background()) })
	if _, err := ra.Beat(c); err != nil {
		t.Fatal(err)
	}
	rb, err := b.Join(c, "web-1")
	if err == nil {
		t.Cleanup(func() { rb.Leave(context.Background()) })
		chat := int64(-1005550001234)
		okA, _, _ := ra.TakeChat(c, chat, false)
		okB, _, _ := rb.TakeChat(c, chat, false)
		t.Fatalf("second Join with a live replica's name succeeded; both hold chat %d: %v, %v", chat, okA, okB)
	}
	if !errors.Is(err, memory.ErrReplicaNameTaken) {
		t.Fatalf("second Join = %v; want ErrReplicaNameTaken", err)
	}
	// The first one beats on, and a restart under its name, once it is
	// gone, is welcome.
	if live, err := ra.Beat(c); len(live) != 1 || err != nil {
		t.Fatalf("first Beat after the refusal = %v, %v", live, err)
	}
	ra.Leave(c)
	rb, err = b.Join(c, "web-1")
	if err != nil {
		t.Fatalf("Join under the name of a replica that left = %v", err)
	}
	t.Cleanup(func() { rb.Leave(context.Background()) })
}

// A replica's heartbeat renews the leases of the chats whose updates run
// there even when they ran out meanwhile (it froze, or its beats came
// late) — unless another replica took them — and tells which chats it
// holds: what the replica's Telegram calls are fenced by.
func TestTheHeartbeatKeepsTheChatsRunningHereAndTellsWhichItHolds(t *testing.T) {
	_, _, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	running, lapsed, taken, let := int64(-1001000000001), int64(-1001000000002), int64(5000000003), int64(5000000004)
	for _, chat := range []int64{running, lapsed, taken, let} {
		if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
			t.Fatalf("TakeChat(%d) = %v, %v", chat, ok, err)
		}
	}
	if err := ra.ReleaseChat(c, let); err != nil {
		t.Fatal(err)
	}
	memorytest.Exec(t, url, `update chat_leases set until = now() - interval '1 second' where chat_id in (-1001000000001, -1001000000002, 5000000003)`)
	if ok, _, err := rb.TakeChat(c, taken, true); !ok || err != nil {
		t.Fatalf("r2 TakeChat of a lapsed lease = %v, %v", ok, err)
	}
	_, held, took, err := ra.BeatHolding(c, []int64{running, taken})
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 1 || held[0] != running {
		t.Fatalf("held = %v; want only %d: running here and not taken (the lapsed idle one, the one r2 took and the one let go are not)", held, running)
	}
	if len(took) != 1 || took[0] != taken {
		t.Fatalf("taken = %v; want only %d, the chat running here r2 took", took, taken)
	}
	if ok, _, err := rb.TakeChat(c, running, true); ok || err != nil {
		t.Fatalf("r2 TakeChat of the chat renewed = %v, %v; want it refused", ok, err)
	}
}

// A restart of PostgreSQL closes every replica's connection at once: for a
// moment all look gone. A replica that last beat before the server started
// is not known to be gone — it may be reconnecting, its turns still
// running — so its chats are taken only once their leases run out, which
// its first heartbeat back prevents.
func TestAReplicaLastSeenBeforeTheDatabaseRestartedIsNotTakenForGone(t *testing.T) {
	_, _, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := int64(-1009876543210)
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	// r1's connection drops, as at a restart, and its last beat came
	// before the server started; its lease was renewed more than two
	// seconds ago and has seconds left.
	cutReplica(t, url, "r1")
	memorytest.Exec(t, url, `update replicas set seen_at = pg_postmaster_start_time() - interval '1 second' where id = 'r1'`)
	memorytest.Exec(t, url, `update chat_leases set until = until - interval '2 seconds' where replica = 'r1'`)
	if ok, _, err := rb.TakeChat(c, chat, true); ok || err != nil {
		t.Fatalf("r2 TakeChat of a chat whose holder was last seen before the restart = %v, %v; want it left until its lease runs out", ok, err)
	}
	if err := ra.Reconnect(c); err != nil {
		t.Fatal(err)
	}
	if _, held, _, err := ra.BeatHolding(c, []int64{chat}); err != nil || len(held) != 1 || held[0] != chat {
		t.Fatalf("r1 BeatHolding after reconnecting = %v, %v; want its chat renewed", held, err)
	}
	// Were r1 gone for good, the lease runs out and the chat is taken then.
	memorytest.Exec(t, url, `update chat_leases set until = now() - interval '1 millisecond' where replica = 'r1'`)
	memorytest.Exec(t, url, `update replicas set seen_at = pg_postmaster_start_time() - interval '1 second' where id = 'r1'`)
	if ok, last, err := rb.TakeChat(c, chat, true); !ok || last.From != "r1" || err != nil {
		t.Fatalf("r2 forced TakeChat once the lease ran out = %v, %+v, %v; want the chat", ok, last, err)
	}
}

// A PostgreSQL process that crashes (one the kernel killed for memory, say)
// makes the server end every connection and start afresh, as a restart
// does — but pg_postmaster_start_time() stays as it was: the postmaster
// itself never stopped. Every replica looks gone for the moment until it
// reconnects, though its heartbeats came after the server started, and
// the first one back must not take the others' chats while their turns
// still run.
func TestAReplicaCutOffWhenTheDatabaseReinitializesIsNotTakenForGone(t *testing.T) {
	_, _, ra, rb, url := twoReplicas(t)
	c := ctx(t)
	chat := int64(-1009876543211)
	if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
		t.Fatalf("r1 TakeChat = %v, %v", ok, err)
	}
	for _, r := range []*memory.Replica{ra, rb} { // both beat, as they do every second
		if _, err := r.Beat(c); err != nil {
			t.Fatal(err)
		}
	}
	// Both replicas' connections drop at once, as when the server
	// reinitializes; r1's lease was renewed more than two seconds ago.
	cutReplica(t, url, "r1", "r2")
	memorytest.Exec(t, url, `update chat_leases set until = until - interval '2 seconds' where replica = 'r1'`)
	if err := rb.Reconnect(c); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := rb.TakeChat(c, chat, true); ok || err != nil {
		t.Fatalf("r2, back first, TakeChat of r1's chat = %v, %v; want it left until its lease runs out: r1 may be reconnecting", ok, err)
	}
	if chats, err := rb.Claimable(c, 10); err != nil || len(chats) != 0 {
		t.Fatalf("Claimable = %+v, %v; want none", chats, err)
	}
	if err := ra.Reconnect(c); err != nil {
		t.Fatal(err)
	}
	if _, held, _, err := ra.BeatHolding(c, []int64{chat}); err != nil || len(held) != 1 || held[0] != chat {
		t.Fatalf("r1 BeatHolding after reconnecting = %v, %v; want its chat renewed", held, err)
	}
}

// A replica that never comes back — killed while the database was away, or
// a lone ryo killed and started again under a new name — runs nothing
// under its leases once they ran out: its chats are taken at once when
// their next update comes, unforced, as those of a replica seen gone are,
// not held for it a minute (Affinity) and taken only by the sweep's force,
// seconds late.
func TestTheChatsOfAReplicaThatNeverCameBackAreTakenOnceItsLeasesRanOut(t *testing.T) {
	for _, how := range []string{"killed, and another started after", "gone while the database was away"} {
		t.Run(how, func(t *testing.T) {
			url := memorytest.URL(t)
			a, b := memorytest.OpenURL(t, url), memorytest.OpenURL(t, url)
			c := ctx(t)
			ra, err := a.Join(c, "r1")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ra.Leave(context.Background()) })
			held, let := int64(-1001234500001), int64(7123400002)
			for _, chat := range []int64{held, let} {
				if ok, _, err := ra.TakeChat(c, chat, false); !ok || err != nil {
					t.Fatalf("r1 TakeChat(%d) = %v, %v", chat, ok, err)
				}
			}
			if err := ra.ReleaseChat(c, let); err != nil { // answered a moment ago
				t.Fatal(err)
			}
			if _, err := ra.Beat(c); err != nil {
				t.Fatal(err)
			}
			cutReplica(t, url, "r1")
			if how == "gone while the database was away" {
				memorytest.Exec(t, url, `update replicas set seen_at = pg_postmaster_start_time() - interval '1 second' where id = 'r1'`)
			}
			rb, err := b.Join(c, "r2")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rb.Leave(context.Background()) })
			memorytest.Exec(t, url, `update chat_leases set until = now() - interval '1 millisecond' where chat_id = -1001234500001`)
			store(t, b, memory.InboxUpdate{ID: 9000000021, ChatID: held, Kind: "message", Raw: []byte(`{"update_id":9000000021}`)})
			store(t, b, memory.InboxUpdate{ID: 9000000022, ChatID: let, Kind: "message", Raw: []byte(`{"update_id":9000000022}`)})
			chats, err := rb.Claimable(c, 10)
			if err != nil || len(chats) != 2 || !chats[0].Orphaned || !chats[1].Orphaned {
				t.Fatalf("Claimable = %+v, %v; want both chats, orphaned", chats, err)
			}
			for _, chat := range []int64{held, let} {
				if ok, last, err := rb.TakeChat(c, chat, false); !ok || last.From != "r1" || err != nil {
					t.Errorf("r2 unforced TakeChat(%d) = %v, %+v, %v; want the chat, from r1", chat, ok, last, err)
				}
			}
		})
	}
}

// cutReplica ends the connection that holds each named replica's lock, as
// when its process is killed or the database ends its connections.
func cutReplica(t *testing.T, url string, ids ...string) {
	t.Helper()
	memorytest.Exec(t, url, fmt.Sprintf(`select pg_terminate_backend(l.pid) from pg_locks l join replicas r
		on l.locktype = 'advisory' and l.objsubid = 1 and l.classid = (r.lock_key >> 32)::oid
		and l.objid = (r.lock_key & 4294967295)::oid where r.id in ('%s')`, strings.Join(ids, "', '")))
}
