package bot

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/toolbus"
)

// forget_me deletes only the data of the person it runs for, and after a
// crash in the middle of its run it tells whether it happened — the person
// is no longer known — so that it is finished, or run again, and never
// asked about again.
func TestForgetMeToolIsThePersonsOwnAndTellsWhetherItHappened(t *testing.T) {
	db := memorytest.Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice, bob := ryo.User{ID: 7123456789, FirstName: "Alice"}, ryo.User{ID: 7234567891, FirstName: "Bob"}
	for _, u := range []ryo.User{alice, bob} {
		if _, err := db.SaveUser(ctx, u, true); err != nil {
			t.Fatal(err)
		}
	}
	spec := forgetMeTool(db)
	args := json.RawMessage(`{"user_id":7123456789}`)
	as := func(u ryo.User) context.Context { return ryo.WithCaller(ctx, ryo.Caller{Person: u}) }

	var refused *toolbus.Error
	if _, err := spec.Tool.Call(as(bob), args); !errors.As(err, &refused) || refused.Code != "not_yours" {
		t.Fatalf("Bob running forget_me for Alice = %v; want not_yours", err)
	}
	if got := spec.Happened(as(bob), args); got != toolbus.Unknown {
		t.Errorf("Happened for someone else = %v; want Unknown", got)
	}
	if got := spec.Happened(as(alice), args); got != toolbus.NotHappened {
		t.Errorf("Happened before the run = %v; want NotHappened", got)
	}
	if _, err := spec.Tool.Call(as(alice), args); err != nil {
		t.Fatal(err)
	}
	if got := spec.Happened(as(alice), args); got != toolbus.Happened {
		t.Errorf("Happened after the run = %v; want Happened", got)
	}
	if _, known, _ := db.FindUser(ctx, bob.ID); !known {
		t.Error("forgetting Alice forgot Bob")
	}
}

// An export too big for one file says so in its caption, and what it left
// out.
func TestExportCaptionSaysWhatDidNotFit(t *testing.T) {
	if c := exportCaption(lang.Printer{}, 0, 0, 0); c != "Everything I keep about you, as JSON. /forgetme deletes it." {
		t.Errorf("a whole export's caption: %q", c)
	}
	c := exportCaption(lang.Printer{}, 1200, 1, 0)
	for _, want := range []string{"too much for one file", "your oldest 1200 messages, 1 memory and 0 requests are not in it", "/forgetme deletes them"} {
		if !strings.Contains(c, want) {
			t.Errorf("the caption %q does not say %q", c, want)
		}
	}
}
