package memory_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

func remember(t *testing.T, db *memory.DB, scope ryo.Scope, owner, chat int64, content string, tags ...string) ryo.Memory {
	t.Helper()
	m, err := db.Remember(ctx(t), ryo.Memory{Scope: scope, Owner: owner, Chat: chat, Content: content, Tags: tags, AddedBy: owner})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The right memory ranks first for questions that say it differently.
func TestRecallFindsParaphrases(t *testing.T) {
	db := memorytest.Open(t)
	facts := []string{
		"My dog is called Rex",
		"I'm allergic to peanuts",
		"My sister Anna's birthday is on 3 March",
		"I work as a nurse at the city hospital",
		"My favourite colour is green",
		"I live in Lisbon with my partner",
		"The wifi password at home is on the fridge",
		"I am learning to play the cello",
		"Моя собака боится грозы",
	}
	for _, f := range facts {
		remember(t, db, ryo.ScopeUser, 1, 1, f)
	}
	for query, want := range map[string]string{
		"what's the name of my dog?":           "My dog is called Rex",
		"do I have any allergies?":             "I'm allergic to peanuts",
		"when is my sister's birthday":         "My sister Anna's birthday is on 3 March",
		"where am I working these days?":       "I work as a nurse at the city hospital",
		"which colours do I like?":             "My favourite colour is green",
		"what city do I live in":               "I live in Lisbon with my partner",
		"what instrument am I learning":        "I am learning to play the cello",
		"чего боится моя собака?":              "Моя собака боится грозы",
		"remind me where the wifi password is": "The wifi password at home is on the fridge",
	} {
		got, err := db.Recall(ctx(t), ryo.PersonShelf(1), query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Content != want {
			var shown []string
			for _, m := range got {
				shown = append(shown, m.Content)
			}
			t.Errorf("Recall(%q) = %q; want %q first", query, shown, want)
		}
	}
}

// No path through the store reaches another shelf's memories.
func TestShelvesAreSeparate(t *testing.T) {
	db := memorytest.Open(t)
	mine := remember(t, db, ryo.ScopeUser, 1, 1, "My PIN is 4242")
	remember(t, db, ryo.ScopeUser, 2, 2, "Bob's PIN is 1111")
	team := remember(t, db, ryo.ScopeGroup, 1, -5, "The team's PIN is 9999")
	for _, tt := range []struct {
		shelf ryo.Shelf
		want  string
	}{
		{ryo.PersonShelf(1), "My PIN is 4242"},
		{ryo.PersonShelf(2), "Bob's PIN is 1111"},
		{ryo.GroupShelf(-5), "The team's PIN is 9999"},
	} {
		got, err := db.Recall(ctx(t), tt.shelf, "what is the PIN", 10)
		if err != nil || len(got) != 1 || got[0].Content != tt.want {
			t.Errorf("Recall on %+v = %+v, %v; want only %q", tt.shelf, got, err, tt.want)
		}
		list, total, err := db.Memories(ctx(t), tt.shelf, 0, 10)
		if err != nil || total != 1 || len(list) != 1 || list[0].Content != tt.want {
			t.Errorf("Memories on %+v = %+v (%d), %v", tt.shelf, list, total, err)
		}
	}
	if _, ok, err := db.Forget(ctx(t), ryo.PersonShelf(2), mine.ID); ok || err != nil {
		t.Fatalf("Bob forgot Alice's memory: %v, %v", ok, err)
	}
	if _, ok, _ := db.Memory(ctx(t), ryo.PersonShelf(1), team.ID); ok {
		t.Fatal("a group memory is on a person's shelf")
	}
	if m, ok, err := db.Forget(ctx(t), ryo.PersonShelf(1), mine.ID); !ok || err != nil || m.Content != "My PIN is 4242" {
		t.Fatalf("Forget = %+v, %v, %v", m, ok, err)
	}
	if _, total, _ := db.Memories(ctx(t), ryo.PersonShelf(1), 0, 10); total != 0 {
		t.Fatalf("%d memories left after forgetting", total)
	}
}

func TestRememberTwiceKeepsOneWithBothTags(t *testing.T) {
	db := memorytest.Open(t)
	a := remember(t, db, ryo.ScopeUser, 1, 1, "  I like tea  ", "drinks")
	b := remember(t, db, ryo.ScopeUser, 1, 1, "I like tea", "food")
	if a.ID != b.ID || a.Content != "I like tea" || strings.Join(b.Tags, ",") != "drinks,food" {
		t.Fatalf("first %+v, second %+v", a, b)
	}
	if got, _ := db.Recall(ctx(t), ryo.PersonShelf(1), "any food preferences?", 1); len(got) != 1 {
		t.Fatal("a memory is not found by its tag")
	}
	if _, err := db.Remember(ctx(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: 1, Chat: 1, Content: strings.Repeat("x", 2001), AddedBy: 1}); err != memory.ErrTooLong {
		t.Fatalf("a 2001-character memory: %v", err)
	}
}

func TestExpiredMemoriesAreNotRecalled(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Now()
	clock := clocktest.New(now)
	db.Clock = clock
	if _, err := db.Remember(ctx(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: 1, Chat: 1, Content: "Parking spot 12 today",
		AddedBy: 1, Expires: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Recall(ctx(t), ryo.PersonShelf(1), "parking", 5); len(got) != 1 || got[0].LastUsed.IsZero() {
		t.Fatalf("before expiry: %+v", got)
	}
	now = now.Add(2 * time.Hour)
	clock.Advance(2 * time.Hour)
	if got, _ := db.Recall(ctx(t), ryo.PersonShelf(1), "parking", 5); len(got) != 0 {
		t.Fatalf("after expiry: %+v", got)
	}
}

func TestAccess(t *testing.T) {
	db := memorytest.Open(t)
	now := time.Now()
	clock := clocktest.New(now)
	db.Clock = clock
	if _, err := db.SaveUser(ctx(t), ryo.User{ID: 7, FirstName: "Eve", Username: "Eve_X"}, false); err != nil {
		t.Fatal(err)
	}
	if named, err := db.UsersNamed(ctx(t), "eve_x"); err != nil || len(named) != 1 || named[0].ID != 7 || named[0].Allowed || named[0].Role != ryo.RoleUser {
		t.Fatalf("UsersNamed(eve_x) = %+v, %v", named, err)
	}
	for _, want := range []bool{true, false} {
		if tell, err := db.Refuse(ctx(t), 7); tell != want || err != nil {
			t.Fatalf("Refuse = %v, %v; want %v", tell, err, want)
		}
	}
	now = now.Add(25 * time.Hour)
	clock.Advance(25 * time.Hour)
	if tell, _ := db.Refuse(ctx(t), 7); !tell {
		t.Fatal("not told again after a day")
	}
	u, err := db.SetAccess(ctx(t), 7, ryo.RoleBanned, false, 1)
	if err != nil || u.Role != ryo.RoleBanned || u.FirstName != "Eve" {
		t.Fatalf("SetAccess = %+v, %v", u, err)
	}
	if tell, _ := db.Refuse(ctx(t), 7); !tell {
		t.Fatal("not told after the access changed")
	}
	if u, err := db.SetAccess(ctx(t), 99, ryo.RoleUser, true, 1); err != nil || !u.Allowed || u.ID != 99 {
		t.Fatalf("SetAccess of someone never seen = %+v, %v", u, err)
	}
	if list, total, err := db.Users(ctx(t), 0, 10); err != nil || total != 2 || list[0].ID != 99 {
		t.Fatalf("Users = %+v (%d), %v; want the allowed person first", list, total, err)
	}
}

// With embeddings, a memory close in meaning is found though no word
// matches, and one found by words alone still comes up.
func TestRecallNearFusesMeaningAndWords(t *testing.T) {
	db := memorytest.Open(t)
	add := func(content string, vec []float32) ryo.Memory {
		m, err := db.Remember(ctx(t), ryo.Memory{Scope: ryo.ScopeUser, Owner: 1, Chat: 1, Content: content, AddedBy: 1, Embedding: vec})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	add("I'm allergic to peanuts", []float32{1, 0, 0})
	nuts := add("Cashews make me sick", []float32{0, 1, 0})
	add("No embedding here: an old memory about cashews", nil)
	got, err := db.RecallNear(ctx(t), ryo.PersonShelf(1), "what food should I avoid?", []float32{0.1, 0.9, 0.1}, 3)
	if err != nil || len(got) != 2 || got[0].ID != nuts.ID {
		t.Fatalf("RecallNear = %+v, %v; want the cashews first, by meaning", got, err)
	}
	got, _ = db.RecallNear(ctx(t), ryo.PersonShelf(1), "cashews", []float32{1, 0, 0}, 3)
	if len(got) != 3 {
		t.Fatalf("RecallNear = %+v; want the word matches and the nearest", got)
	}
	if got, _ := db.RecallNear(ctx(t), ryo.PersonShelf(2), "cashews", []float32{0, 1, 0}, 3); len(got) != 0 {
		t.Fatalf("another shelf recalled %+v", got)
	}
}
