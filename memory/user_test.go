package memory_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// People at Telegram's id ranges, all beyond 32 bits, and a channel that
// posts in groups: a chat's username and a person's share one namespace.
var (
	nameAlice   = ryo.User{ID: 7_123_456_789, FirstName: "Alice"}
	nameBob     = ryo.User{ID: 6_012_345_678, FirstName: "Bob"}
	nameCarol   = ryo.User{ID: 5_000_000_001, FirstName: "Carol"}
	nameChannel = ryo.User{ID: -1001234567890, FirstName: "News"}
)

// seenAs is u as a message sent at seen showed them, with username.
func seenAs(u ryo.User, username string, seen time.Time) ryo.User {
	u.Username, u.Seen = username, seen
	return u
}

// holders is the ids UsersNamed finds for name.
func holders(t *testing.T, db *memory.DB, name string) []int64 {
	t.Helper()
	named, err := db.UsersNamed(ctx(t), name)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, u := range named {
		ids = append(ids, u.ID)
	}
	return ids
}

func save(t *testing.T, db *memory.DB, u ryo.User) {
	t.Helper()
	if _, err := db.SaveUser(ctx(t), u, false); err != nil {
		t.Fatal(err)
	}
}

func storedName(t *testing.T, db *memory.DB, id int64) string {
	t.Helper()
	u, ok, err := db.FindUser(ctx(t), id)
	if err != nil || !ok {
		t.Fatalf("FindUser(%d) = %v, %v", id, ok, err)
	}
	return u.Username
}

// A username is whoever was seen with it last: when someone else takes it,
// the old holder loses it, and a sighting older than the newest — a
// message handled late — moves it nowhere. Names match in any case.
func TestUsernameGoesToItsNewestHolder(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db.Clock = clocktest.New(now)

	save(t, db, seenAs(nameAlice, "TheName", now.Add(-2*time.Hour)))
	save(t, db, seenAs(nameBob, "thename", now.Add(-time.Hour)))
	if got := holders(t, db, "THENAME"); !slices.Equal(got, []int64{nameBob.ID}) {
		t.Fatalf("after Bob took the name, it names %v; want Bob only", got)
	}
	if got := storedName(t, db, nameAlice.ID); got != "" {
		t.Errorf("Alice still holds @%s after Bob took it", got)
	}

	save(t, db, seenAs(nameAlice, "TheName", now.Add(-3*time.Hour))) // an old message of hers, handled late
	if got := holders(t, db, "thename"); !slices.Equal(got, []int64{nameBob.ID}) {
		t.Fatalf("an out-of-date sighting of Alice made the name name %v; want Bob only", got)
	}
	save(t, db, seenAs(nameBob, "bob_before", now.Add(-5*time.Hour)))
	if got := storedName(t, db, nameBob.ID); got != "thename" {
		t.Errorf("an older sighting of Bob changed his name to @%s", got)
	}

	save(t, db, seenAs(nameChannel, "thename", now.Add(-30*time.Minute)))
	if got := holders(t, db, "thename"); !slices.Equal(got, []int64{nameChannel.ID}) {
		t.Fatalf("after a channel took the name, it names %v; want the channel", got)
	}
	named, _ := db.UsersNamed(ctx(t), "thename")
	if !named[0].Seen.Equal(now.Add(-30 * time.Minute)) {
		t.Errorf("the holder was seen %v; want %v", named[0].Seen, now.Add(-30*time.Minute))
	}
}

// Two people seen with one name at the same moment both claim it, and so
// do people stored before sightings were kept: the name is then
// ambiguous, until one of them is seen again.
func TestUsernameClaimedTwiceIsAmbiguous(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db.Clock = clocktest.New(now)
	at := now.Add(-time.Minute)
	save(t, db, seenAs(nameAlice, "twin", at))
	save(t, db, seenAs(nameBob, "Twin", at))
	if got := holders(t, db, "twin"); !slices.Equal(got, []int64{nameBob.ID, nameAlice.ID}) {
		t.Fatalf("a name seen on two people at once names %v; want both, by id", got)
	}

	mustExec(t, db, fmt.Sprintf(`insert into users (id, username, first_name) values (%d, 'legacy', 'Carol'), (%d, 'Legacy', 'Dave')`,
		nameCarol.ID, int64(8_589_934_593)))
	if got := holders(t, db, "LEGACY"); !slices.Equal(got, []int64{nameCarol.ID, 8_589_934_593}) {
		t.Fatalf("two rows stored before sightings name %v; want both", got)
	}
	named, _ := db.UsersNamed(ctx(t), "legacy")
	if !named[0].Seen.IsZero() || named[0].FirstName != "Carol" {
		t.Errorf("a row stored before sightings reads %+v; want Carol, never seen", named[0])
	}
	save(t, db, seenAs(nameCarol, "legacy", time.Time{})) // seen now
	if got := holders(t, db, "legacy"); !slices.Equal(got, []int64{nameCarol.ID}) {
		t.Fatalf("after Carol was seen with it, the name names %v; want Carol", got)
	}
	if got := holders(t, db, "nobody"); len(got) != 0 {
		t.Errorf("an unknown name names %v", got)
	}
}

// A message dated ahead of the bot's clock is seen now, no later: a press,
// seen at the bot's time, is not beaten by an earlier message.
func TestSightingIsNeverLaterThanNow(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db.Clock = clocktest.New(now)
	save(t, db, seenAs(nameAlice, "ahead", now.Add(time.Hour)))
	if u, _, _ := db.FindUser(ctx(t), nameAlice.ID); !u.Seen.Equal(now) {
		t.Fatalf("seen %v; want now, %v", u.Seen, now)
	}
}
