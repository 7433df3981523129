package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
)

// shelves is an in-memory store of memories, by shelf.
type shelves struct {
	saved []ryo.Memory
	asked []ryo.Shelf
}

func (s *shelves) Memory(_ context.Context, sh ryo.Shelf, id int64) (ryo.Memory, bool, error) {
	for _, m := range s.saved {
		if m.ID == id && on(m, sh) {
			return m, true, nil
		}
	}
	return ryo.Memory{}, false, nil
}

func (s *shelves) Remember(_ context.Context, m ryo.Memory) (ryo.Memory, error) {
	m.ID = int64(len(s.saved) + 1)
	m.CreatedAt = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	s.saved = append(s.saved, m)
	return m, nil
}

func (s *shelves) RecallNear(_ context.Context, sh ryo.Shelf, query string, _ []float32, limit int) ([]ryo.Memory, error) {
	s.asked = append(s.asked, sh)
	var out []ryo.Memory
	for _, m := range s.saved {
		if on(m, sh) && strings.Contains(strings.ToLower(m.Content), strings.ToLower(query)) && len(out) < limit {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s *shelves) Forget(ctx context.Context, sh ryo.Shelf, id int64) (ryo.Memory, bool, error) {
	m, ok, err := s.Memory(ctx, sh, id)
	if ok {
		s.saved = slices.DeleteFunc(s.saved, func(k ryo.Memory) bool { return k.ID == id })
	}
	return m, ok, err
}

func on(m ryo.Memory, sh ryo.Shelf) bool {
	if sh.Every() {
		return true
	}
	if sh.Scope == ryo.ScopeGroup {
		return m.Scope == ryo.ScopeGroup && m.Chat == sh.ID
	}
	return m.Scope == ryo.ScopeUser && m.Owner == sh.ID
}

func memoryTools(t *testing.T, store *shelves) *toolbus.Registry {
	t.Helper()
	r := toolbus.NewRegistry()
	for _, s := range tools.Memory(tools.Recaller{Store: store}, nil) {
		if err := r.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func run(r *toolbus.Registry, ctx context.Context, tool, args string) toolbus.Result {
	return r.Run(ctx, toolbus.Call{ID: "c", Key: tool + args + time.Now().String(), Tool: tool, Args: json.RawMessage(args), Confirmed: true})
}

var (
	ann     = ryo.User{ID: 7123456789, FirstName: "Ann"}
	private = ryo.WithCaller(context.Background(), ryo.Caller{Person: ann, Chat: ryo.Chat{ID: ann.ID, Type: ryo.ChatPrivate}, Message: 4821})
	inGroup = ryo.WithCaller(context.Background(), ryo.Caller{Person: ann, Chat: ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup}})
)

func TestRememberGoesOnTheConversationsShelf(t *testing.T) {
	store := &shelves{}
	r := memoryTools(t, store)
	if res := run(r, private, "remember", `{"content":"Ann likes tea","tags":["#Drinks","drinks"],"expires_in_days":7}`); res.Status != toolbus.StatusOK {
		t.Fatalf("remember = %+v", res)
	}
	if res := run(r, inGroup, "remember", `{"content":"The team meets on Mondays"}`); res.Status != toolbus.StatusOK {
		t.Fatalf("remember in a group = %+v", res)
	}
	mine, team := store.saved[0], store.saved[1]
	if mine.Scope != ryo.ScopeUser || mine.Owner != ann.ID || mine.Source != 4821 || strings.Join(mine.Tags, ",") != "drinks" ||
		mine.Expires.Before(time.Now().AddDate(0, 0, 6)) {
		t.Fatalf("private memory = %+v", mine)
	}
	if team.Scope != ryo.ScopeGroup || team.Chat != -1001234567890 || !team.Expires.IsZero() {
		t.Fatalf("group memory = %+v", team)
	}
	res := run(r, private, "recall", `{"query":"mondays"}`)
	if !strings.Contains(string(res.Output), `"memories":[]`) || !strings.Contains(string(res.Output), "nothing remembered") {
		t.Fatalf("recall in private of a group memory = %s", res.Output)
	}
	if res := run(r, inGroup, "recall", `{"query":"mondays"}`); !strings.Contains(string(res.Output), "The team meets on Mondays") {
		t.Fatalf("recall in the group = %s", res.Output)
	}
}

func TestForgetReachesOnlyTheConversationsShelf(t *testing.T) {
	store := &shelves{}
	r := memoryTools(t, store)
	run(r, inGroup, "remember", `{"content":"The team meets on Mondays"}`)
	res := run(r, private, "forget", `{"memory_id":1}`)
	if res.Status != toolbus.StatusError || res.Error.Code != "not_found" {
		t.Fatalf("forget of another shelf's memory = %+v", res)
	}
	if got := r.Explain(inGroup, toolbus.Call{Tool: "forget", Args: json.RawMessage(`{"memory_id":1}`)}); got != "Forget memory #1: “The team meets on Mondays”" {
		t.Fatalf("Explain = %q", got)
	}
	if got := r.Explain(private, toolbus.Call{Tool: "forget", Args: json.RawMessage(`{"memory_id":1}`)}); !strings.Contains(got, "no memory #1 here") {
		t.Fatalf("Explain elsewhere = %q", got)
	}
	if res := run(r, inGroup, "forget", `{"memory_id":1}`); res.Status != toolbus.StatusOK {
		t.Fatalf("forget in the group = %+v", res)
	}
}

// Asked about a forget cut short, forget tells from the shelf whether it
// happened: the memory is there or it is gone. Without a caller, or with
// arguments it cannot read, it cannot tell.
func TestForgetTellsWhetherItHappened(t *testing.T) {
	store := &shelves{}
	r := memoryTools(t, store)
	run(r, inGroup, "remember", `{"content":"The team meets on Mondays"}`)
	call := toolbus.Call{Tool: "forget", Args: json.RawMessage(`{"memory_id":1}`), Confirmed: true}
	for _, c := range []struct {
		ctx  context.Context
		args string
		want toolbus.Happening
	}{
		{inGroup, `{"memory_id":1}`, toolbus.NotHappened},
		{private, `{"memory_id":1}`, toolbus.Happened}, // not on this shelf: no forget here can change it
		{context.Background(), `{"memory_id":1}`, toolbus.Unknown},
		{inGroup, `{"memory_id":"one"}`, toolbus.Unknown},
	} {
		call.Args = json.RawMessage(c.args)
		if got := r.Happened(c.ctx, call); got != c.want {
			t.Errorf("Happened(%s) = %d; want %d", c.args, got, c.want)
		}
	}
	call.Args = json.RawMessage(`{"memory_id":1}`)
	r.Run(inGroup, call)
	if got := r.Happened(inGroup, call); got != toolbus.Happened {
		t.Fatalf("Happened after the forget = %d; want Happened", got)
	}
	if got := r.Happened(inGroup, toolbus.Call{Tool: "recall", Args: json.RawMessage(`{"query":"x"}`)}); got != toolbus.Unknown {
		t.Fatalf("Happened of a tool that cannot tell = %d; want Unknown", got)
	}
}

func TestMemoryToolsNeedACaller(t *testing.T) {
	r := memoryTools(t, &shelves{})
	res := run(r, context.Background(), "remember", `{"content":"x"}`)
	if res.Status != toolbus.StatusError || !strings.Contains(res.Error.Message, "caller") {
		t.Fatalf("remember without a caller = %+v", res)
	}
}

// forget_any, an admin's, forgets a memory of any shelf, with no caller,
// and its prompt says whose memory it is.
func TestAdminForgetReachesEveryShelf(t *testing.T) {
	store := &shelves{}
	run(memoryTools(t, store), private, "remember", `{"content":"My locker code is 4711"}`)
	store.saved[0].OwnerName = "Bob"
	r := toolbus.NewRegistry()
	if err := r.Register(tools.AdminForget(tools.Recaller{Store: store})); err != nil {
		t.Fatal(err)
	}
	call := toolbus.Call{Tool: "forget_any", Args: json.RawMessage(`{"memory_id":1}`), Confirmed: true}
	if got := r.Explain(context.Background(), call); got != "Forget Bob's memory #1: “My locker code is 4711”" {
		t.Fatalf("Explain = %q", got)
	}
	if hold := r.Hold(call); hold != toolbus.HoldDestructive {
		t.Fatalf("Hold = %q; want it to wait for a yes", hold)
	}
	if res := r.Run(context.Background(), call); res.Status != toolbus.StatusOK {
		t.Fatalf("forget_any = %+v", res)
	}
}

// A limit JSON Schema calls an integer however it is written — 2.0, 2e0 —
// is taken as that many memories.
func TestRecallTakesAnIntegerWrittenAsAFloat(t *testing.T) {
	store := &shelves{}
	r := memoryTools(t, store)
	for _, fact := range []string{"Ann likes tea", "Ann likes green tea", "Ann likes iced tea"} {
		if res := run(r, private, "remember", `{"content":"`+fact+`"}`); res.Status != toolbus.StatusOK {
			t.Fatalf("remember = %+v", res)
		}
	}
	for _, limit := range []string{"2.0", "2e0", "2"} {
		res := run(r, private, "recall", `{"query":"tea","limit":`+limit+`}`)
		if res.Status != toolbus.StatusOK || strings.Count(string(res.Output), "likes") != 2 {
			t.Errorf("recall with limit %s = %+v %s; want two memories", limit, res.Status, res.Output)
		}
	}
}
