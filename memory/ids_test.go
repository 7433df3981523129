package memory_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// maxSafe is 2⁵³ − 1, the largest integer every JSON reader keeps exactly.
const maxSafe = 1<<53 - 1

// edge is one set of Telegram ids at the edges of what the store must take.
type edge struct {
	name    string
	user    int64
	chat    ryo.Chat
	thread  int
	message int   // a Telegram message id
	update  int64 // a Telegram update id
}

var edges = []edge{
	{"private chat of an account beyond 2³²", 7_123_456_789,
		ryo.Chat{ID: 7_123_456_789, Type: ryo.ChatPrivate, Title: "Zoë"}, 0, 1<<31 + 7, 1<<31 + 11},
	{"supergroup", 5_000_000_001,
		ryo.Chat{ID: -1001234567890, Type: ryo.ChatSupergroup, Title: "Team"}, 0, 2_000_000_001, 987_654_321},
	{"forum topic beyond 2³¹", 8_589_934_593,
		ryo.Chat{ID: -1009876543210, Type: ryo.ChatSupergroup, Title: "Forum", IsForum: true}, 1<<31 + 3, 1<<32 + 5, 1<<32 + 1},
	{"channel", 6_999_999_999,
		ryo.Chat{ID: -1001111111111, Type: "channel", Title: "News"}, 0, 1<<31 - 1, 1<<31 - 1},
	{"the largest safe ids", maxSafe,
		ryo.Chat{ID: -maxSafe, Type: ryo.ChatSupergroup, Title: "Edge"}, maxSafe, maxSafe - 2, maxSafe},
}

// Every part of the store takes Telegram's real ids and gives them back
// exactly: 64-bit user and chat ids, message, update and thread ids beyond
// 2³¹, and ±(2⁵³ − 1) inside the JSON it keeps.
func TestStoreTakesTelegramIDs(t *testing.T) {
	for _, e := range edges {
		t.Run(e.name, func(t *testing.T) {
			db := memorytest.Open(t)
			checkInbox(t, db, e)
			person := checkPeople(t, db, e)
			row := checkConversation(t, db, e, person)
			checkForcedTool(t, db, e)
			checkTurn(t, db, e)
			checkActions(t, db, e)
			checkMemories(t, db, e, row)
			checkTagsAndViews(t, db, e)
			checkDeadLetter(t, db, e)
			checkKnowledge(t, db, e)
		})
	}
}

func (e edge) place() ryo.Place { return ryo.Place{ChatID: e.chat.ID, Thread: e.thread} }

// bigJSON is a JSON object holding e's ids and the largest safe integers.
func (e edge) bigJSON() json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"chat":%d,"user":%d,"message":%d,"thread":%d,"max":%d,"min":%d}`,
		e.chat.ID, e.user, e.message, e.thread, int64(maxSafe), -int64(maxSafe)))
}

// sameJSON fails t unless got and want hold the same values, numbers
// compared digit by digit.
func sameJSON(t *testing.T, what string, got, want json.RawMessage) {
	t.Helper()
	decode := func(raw json.RawMessage) any {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v in %s", what, err, raw)
		}
		return v
	}
	if g, w := decode(got), decode(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s; want %s", what, got, want)
	}
}

func checkInbox(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"message_id":%d,"message_thread_id":%d,"from":{"id":%d},"chat":{"id":%d},"ids":%s}}`,
		e.update, e.message, e.thread, e.user, e.chat.ID, e.bigJSON()))
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: e.update, ChatID: e.chat.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatalf("StoreUpdates: %v", err)
	}
	un, err := db.Unfinished(c)
	if err != nil || len(un) != 1 || un[0].ID != e.update || un[0].ChatID != e.chat.ID {
		t.Fatalf("Unfinished = %+v, %v; want update %d of chat %d", un, err, e.update, e.chat.ID)
	}
	claim, ok, err := db.ClaimUpdate(c, e.update)
	if err != nil || !ok {
		t.Fatalf("ClaimUpdate = %v, %v", ok, err)
	}
	sameJSON(t, "the claimed update", claim.Raw, raw)
	if state, attempts, err := db.UpdateState(c, e.update); err != nil || state != memory.StateProcessing || attempts != 1 {
		t.Fatalf("UpdateState = %s, %d, %v", state, attempts, err)
	}
}

func checkPeople(t *testing.T, db *memory.DB, e edge) ryo.User {
	c := ctx(t)
	u, err := db.SaveUser(c, ryo.User{ID: e.user, FirstName: "Zoë", Username: "zoe_edge"}, true)
	if err != nil || u.ID != e.user {
		t.Fatalf("SaveUser = %+v, %v", u, err)
	}
	if found, ok, err := db.FindUser(c, e.user); err != nil || !ok || found.ID != e.user {
		t.Fatalf("FindUser(%d) = %+v, %v, %v", e.user, found, ok, err)
	}
	if named, err := db.UsersNamed(c, "ZOE_edge"); err != nil || len(named) != 1 || named[0].ID != e.user {
		t.Fatalf("UsersNamed(ZOE_edge) = %+v, %v", named, err)
	}
	admin := e.user - 1
	if u, err = db.SetAccess(c, e.user, ryo.RoleUser, true, admin); err != nil || u.ID != e.user || !u.Allowed {
		t.Fatalf("SetAccess = %+v, %v", u, err)
	}
	if u, err = db.SetTier(c, e.user, "basic", admin); err != nil || u.ID != e.user || u.Tier != "basic" {
		t.Fatalf("SetTier = %+v, %v", u, err)
	}
	if tell, err := db.Refuse(c, e.user); err != nil || !tell {
		t.Fatalf("Refuse = %v, %v", tell, err)
	}
	list, total, err := db.Users(c, 0, 10)
	if err != nil || total != 1 || !slices.ContainsFunc(list, func(x ryo.User) bool { return x.ID == e.user }) {
		t.Fatalf("Users = %+v, %d, %v", list, total, err)
	}
	if err := db.SaveChat(c, e.chat); err != nil {
		t.Fatalf("SaveChat: %v", err)
	}
	return u
}

func checkConversation(t *testing.T, db *memory.DB, e edge, person ryo.User) ryo.Message {
	c := ctx(t)
	m := ryo.Message{Place: e.place(), Sender: &person, Kind: ryo.KindUser, Text: "hi",
		TelegramID: e.message, ReplyTo: e.message - 1, UpdateID: e.update, Metadata: e.bigJSON(),
		Media:      []ryo.Media{{Kind: ryo.MediaPhoto, FileID: "AgAC-big", UniqueID: "AQAD", Width: 1280, Height: 960, Size: int64(e.message)}},
		MediaGroup: "13758912345678901"}
	first, err := db.SaveUserMessage(c, e.chat, m)
	if err != nil {
		t.Fatalf("SaveUserMessage: %v", err)
	}
	again, err := db.SaveUserMessage(c, e.chat, m)
	if err != nil || again.ID != first.ID {
		t.Fatalf("the same Telegram message stored again = row %d, %v; want row %d", again.ID, err, first.ID)
	}
	hist, err := db.History(c, e.place(), 10)
	if err != nil || len(hist) != 1 {
		t.Fatalf("History = %+v, %v", hist, err)
	}
	h := hist[0]
	if h.Place != e.place() || h.TelegramID != e.message || h.ReplyTo != e.message-1 || h.UpdateID != e.update ||
		h.Sender == nil || h.Sender.ID != e.user {
		t.Fatalf("History row = %+v; want the ids it was stored with", h)
	}
	sameJSON(t, "the message's metadata", h.Metadata, e.bigJSON())
	if !reflect.DeepEqual(h.Media, m.Media) || h.MediaGroup != m.MediaGroup {
		t.Fatalf("History media = %+v in group %q; want %+v in %q", h.Media, h.MediaGroup, m.Media, m.MediaGroup)
	}
	if err := db.ResetContext(c, e.chat, e.place()); err != nil {
		t.Fatalf("ResetContext: %v", err)
	}
	if hist, _ = db.History(c, e.place(), 10); len(hist) != 0 {
		t.Fatalf("History after reset = %d messages", len(hist))
	}
	return first
}

func checkForcedTool(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	if err := db.ForceTool(c, e.user, e.place(), "statistics", db.Now().Add(10*time.Minute)); err != nil {
		t.Fatalf("ForceTool: %v", err)
	}
	if f, ok, err := db.ForcedToolFor(c, e.user, e.place()); err != nil || !ok || f.Tool != "statistics" {
		t.Fatalf("ForcedToolFor = %+v, %v, %v", f, ok, err)
	}
	if tool, err := db.TakeForcedTool(c, e.user, e.place(), e.update); err != nil || tool != "statistics" {
		t.Fatalf("TakeForcedTool = %q, %v", tool, err)
	}
	if waiting, err := db.UnforceTool(c, e.user, e.place()); err != nil || waiting {
		t.Fatalf("UnforceTool = %v, %v; the tool was taken", waiting, err)
	}
	// checkTurn's answer for e.update deletes it.
}

func checkTurn(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	status, next := e.message+1, e.message+2
	if err := db.SaveTurnStatus(c, e.update, e.place(), status); err != nil {
		t.Fatalf("SaveTurnStatus: %v", err)
	}
	if err := db.SaveTurnAnswer(c, e.update, e.place(), "hello", e.bigJSON()); err != nil {
		t.Fatalf("SaveTurnAnswer: %v", err)
	}
	if err := db.SaveTurnParts(c, e.update, []int{status, next}); err != nil {
		t.Fatalf("SaveTurnParts: %v", err)
	}
	turn, err := db.Turn(c, e.update)
	if err != nil || turn.StatusMessageID != status || !slices.Equal(turn.Parts, []int{status, next}) {
		t.Fatalf("Turn = %+v, %v", turn, err)
	}
	sameJSON(t, "the answer's metadata", turn.AnswerMetadata, e.bigJSON())
	key := fmt.Sprintf("call-%d", e.update)
	meta := json.RawMessage(fmt.Sprintf(`{"idempotency_key":%q,"ids":%s}`, key, e.bigJSON()))
	result := ryo.Message{Place: e.place(), Text: "__tool_result__ t {}", UpdateID: e.update, Metadata: meta}
	if _, err := db.SaveToolResult(c, result, key); err != nil {
		t.Fatalf("SaveToolResult: %v", err)
	}
	if got, ok, err := db.ToolResult(c, key); err != nil || !ok || got.Place != e.place() || got.UpdateID != e.update {
		t.Fatalf("ToolResult = %+v, %v, %v", got, ok, err)
	}
	answer := ryo.Message{Place: e.place(), Kind: ryo.KindAssistant, Text: "hello", TelegramID: status, UpdateID: e.update}
	if _, err := db.FinishTurn(c, answer, []string{"edge", "ids"}); err != nil {
		t.Fatalf("FinishTurn: %v", err)
	}
	if state, _, _ := db.UpdateState(c, e.update); state != memory.StateDone {
		t.Fatalf("state after FinishTurn = %s", state)
	}
}

func checkActions(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	now := time.Now()
	clock := clocktest.New(now)
	db.Clock = clock
	a, err := db.SaveHeldAnswer(c, e.update, e.place(), "sure", nil, ryo.Action{
		ID: "edge-yes", Requester: e.user, CallID: "c1", Tool: "wipe", Args: e.bigJSON(), ArgsHash: "h",
		Key: "edge-yes", Reason: "destructive", ExpiresAt: now.Add(time.Hour)})
	if err != nil || a.Place != e.place() || a.Requester != e.user || a.UpdateID != e.update {
		t.Fatalf("SaveHeldAnswer = %+v, %v", a, err)
	}
	sameJSON(t, "the action's arguments", a.Args, e.bigJSON())
	if err := db.SaveActionPrompt(c, a.ID, e.message+3, e.message+4); err != nil {
		t.Fatalf("SaveActionPrompt: %v", err)
	}
	if got, ok, err := db.TurnAction(c, e.update); err != nil || !ok || got.PromptID != e.message+3 || got.FileID != e.message+4 {
		t.Fatalf("TurnAction = %+v, %v, %v", got, ok, err)
	}
	if err := db.RefuseAction(c, a.ID, e.user+1); err != nil {
		t.Fatalf("RefuseAction: %v", err)
	}
	a, decided, err := db.Decide(c, memory.Decision{ID: a.ID, Actor: e.user, Update: e.update + 1, Confirm: true}, ryo.Message{})
	if err != nil || !decided || a.DecidedBy != e.user || a.DecidedUpdate != e.update+1 {
		t.Fatalf("Decide = %+v, %v, %v", a, decided, err)
	}
	if a, err := db.StartAction(c, a.ID); err != nil || a.State != ryo.ActionRunning {
		t.Fatalf("StartAction = %+v, %v", a, err)
	}
	if a, err := db.FinishAction(c, a.ID, ryo.Message{}, "ok"); err != nil || a.State != ryo.ActionExecuted {
		t.Fatalf("FinishAction = %+v, %v", a, err)
	}
	checkInterrupt(t, db, e, now)
	checkExpiry(t, db, e, now)
	if un, err := db.UnsettledActions(c); err != nil || len(un) != 1 || un[0].PromptID != e.message+3 {
		t.Fatalf("UnsettledActions = %+v, %v", un, err)
	}
	if err := db.SettleAction(c, a.ID); err != nil {
		t.Fatalf("SettleAction: %v", err)
	}
	for _, chat := range []int64{e.chat.ID, 0} {
		events, err := db.RefusedPresses(c, 10, chat)
		if err != nil || !slices.ContainsFunc(events, func(ev memory.ActionEvent) bool { return ev.ActorID == e.user+1 }) {
			t.Fatalf("ActionEvents(chat %d) = %+v, %v; want the refused press", chat, events, err)
		}
	}
}

// checkInterrupt has a command's action cut short while it ran, and asked
// again.
func checkInterrupt(t *testing.T, db *memory.DB, e edge, now time.Time) {
	c := ctx(t)
	a, err := db.SaveCommandAction(c, e.update+4, e.place(), ryo.Action{
		ID: "edge-cut", Requester: e.user, CallID: "c4", Tool: "forget", Args: e.bigJSON(), ArgsHash: "h",
		Key: "edge-cut", Reason: "destructive", Origin: ryo.OriginCommand, ExpiresAt: now.Add(time.Hour)})
	if err != nil {
		t.Fatalf("SaveCommandAction: %v", err)
	}
	if _, _, err := db.Decide(c, memory.Decision{ID: a.ID, Actor: e.user, Update: e.update + 5, Confirm: true}, ryo.Message{}); err != nil {
		t.Fatalf("Decide: %v", err)
	}
	if _, err := db.StartAction(c, a.ID); err != nil {
		t.Fatalf("StartAction: %v", err)
	}
	again := a
	again.ID, again.Key, again.UpdateID = "edge-again", "edge-again", e.update+5
	old, ask, err := db.InterruptAction(c, a.ID, ryo.Message{}, again)
	if err != nil || old.State != ryo.ActionInterrupted || ask.RetryOf != a.ID || ask.UpdateID != e.update+5 || ask.Place != e.place() {
		t.Fatalf("InterruptAction = %+v, %+v, %v", old, ask, err)
	}
	if err := db.SettleAction(c, old.ID); err != nil {
		t.Fatalf("SettleAction: %v", err)
	}
}

// checkExpiry has a command's action expire, as a sweep finds it.
func checkExpiry(t *testing.T, db *memory.DB, e edge, now time.Time) {
	c := ctx(t)
	_, err := db.SaveCommandAction(c, e.update+2, e.place(), ryo.Action{
		ID: "edge-late", Requester: e.user, CallID: "c2", Tool: "forget", Args: e.bigJSON(), ArgsHash: "h",
		Key: "edge-late", Reason: "destructive", Origin: ryo.OriginCommand, ExpiresAt: now.Add(-time.Second)})
	if err != nil {
		t.Fatalf("SaveCommandAction: %v", err)
	}
	expired, err := db.ExpireActions(c, func(ryo.Action) ryo.Message { return ryo.Message{} })
	if err != nil || len(expired) != 1 || expired[0].Requester != e.user || expired[0].Place != e.place() {
		t.Fatalf("ExpireActions = %+v, %v", expired, err)
	}
}

func checkMemories(t *testing.T, db *memory.DB, e edge, source ryo.Message) {
	c := ctx(t)
	for _, shelf := range []ryo.Shelf{ryo.PersonShelf(e.user), ryo.GroupShelf(e.chat.ID)} {
		m := ryo.Memory{Scope: shelf.Scope, Owner: e.user, Chat: e.chat.ID, Content: "the parrot is called Kiwi",
			Tags: []string{"pets"}, Source: source.ID, AddedBy: e.user - 1, Embedding: []float32{1, 0}}
		m, err := db.Remember(c, m)
		if err != nil || m.Owner != e.user || m.Chat != e.chat.ID || m.Source != source.ID || m.AddedBy != e.user-1 {
			t.Fatalf("Remember on %+v = %+v, %v", shelf, m, err)
		}
		if list, total, err := db.Memories(c, shelf, 0, 10); err != nil || total != 1 || list[0].ID != m.ID {
			t.Fatalf("Memories(%+v) = %+v, %d, %v", shelf, list, total, err)
		}
		if got, ok, err := db.Memory(c, shelf, m.ID); err != nil || !ok || got.Owner != e.user {
			t.Fatalf("ryo.Memory = %+v, %v, %v", got, ok, err)
		}
		if got, err := db.RecallNear(c, shelf, "parrot", []float32{1, 0}, 5); err != nil || len(got) != 1 || got[0].ID != m.ID {
			t.Fatalf("RecallNear = %+v, %v", got, err)
		}
		if got, ok, err := db.Forget(c, shelf, m.ID); err != nil || !ok || got.Chat != e.chat.ID {
			t.Fatalf("Forget = %+v, %v, %v", got, ok, err)
		}
	}
}

func checkTagsAndViews(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	if uses, total, err := db.TagUses(c, 0, 10); err != nil || total != 2 || len(uses) != 2 {
		t.Fatalf("TagUses = %+v, %d, %v", uses, total, err)
	}
	tagged, total, err := db.TaggedWith(c, "edge", 0, 10)
	if err != nil || total != 1 || tagged[0].Chat != e.chat.ID {
		t.Fatalf("TaggedWith = %+v, %d, %v", tagged, total, err)
	}
	if n, err := db.RenameTag(c, "edge", "border"); err != nil || n != 1 {
		t.Fatalf("RenameTag = %d, %v", n, err)
	}
	if n, err := db.DeleteTag(c, "border"); err != nil || n != 1 {
		t.Fatalf("DeleteTag = %d, %v", n, err)
	}
	if counts, err := db.TagCounts(c, 10); err != nil || len(counts) != 1 || counts[0].Tag != "ids" {
		t.Fatalf("TagCounts = %+v, %v", counts, err)
	}
	v := memory.View{ID: "edge-view", Kind: "memories", Viewer: e.user, Chat: e.chat.ID, Subject: e.bigJSON(), Update: e.update}
	if err := db.SaveView(c, v); err != nil {
		t.Fatalf("SaveView: %v", err)
	}
	got, ok, err := db.View(c, v.ID)
	if err != nil || !ok || got.Viewer != e.user || got.Chat != e.chat.ID || got.Update != e.update || got.Message != e.message+1 {
		t.Fatalf("View = %+v, %v, %v", got, ok, err)
	}
	sameJSON(t, "the view's subject", got.Subject, e.bigJSON())
}

func checkDeadLetter(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	id := e.update - 1
	raw := json.RawMessage(fmt.Sprintf(`{"update_id":%d,"message":{"chat":{"id":%d},"ids":%s}}`, id, e.chat.ID, e.bigJSON()))
	if _, err := db.StoreUpdates(c, []memory.InboxUpdate{{ID: id, ChatID: e.chat.ID, Kind: "message", Raw: raw}}); err != nil {
		t.Fatalf("StoreUpdates: %v", err)
	}
	db.ClaimUpdate(c, id)
	if err := db.FailUpdate(c, id, "failed"); err != nil {
		t.Fatalf("FailUpdate: %v", err)
	}
	letters, _, err := db.DeadLetters(c, 0, 10)
	if err != nil || len(letters) != 1 || letters[0].UpdateID != id || letters[0].ChatID != e.chat.ID {
		t.Fatalf("DeadLetters = %+v, %v", letters, err)
	}
	sameJSON(t, "the dead update", letters[0].Raw, raw)
	if u, err := db.Revive(c, id); err != nil || u.ID != id || u.ChatID != e.chat.ID {
		t.Fatalf("Revive = %+v, %v", u, err)
	}
}

func checkKnowledge(t *testing.T, db *memory.DB, e edge) {
	c := ctx(t)
	chunks := []ryo.Chunk{{Ord: 0, Heading: "Parrots", Text: "The parrot is called Kiwi.", Embedding: []float32{1, 0}}}
	for _, chat := range []int64{e.chat.ID, 0} {
		d, _, err := db.AddDocument(c, ryo.Document{Chat: chat, Name: "pets.md", AddedBy: e.user, Bytes: maxSafe}, chunks)
		if err != nil || d.Chat != chat || d.AddedBy != e.user {
			t.Fatalf("AddDocument for chat %d = %+v, %v", chat, d, err)
		}
		if docs, total, err := db.Documents(c, e.chat.ID, 0, 10); err != nil || total == 0 || docs[0].ID != d.ID || docs[0].Bytes != maxSafe {
			t.Fatalf("Documents = %+v, %d, %v", docs, total, err)
		}
		if got, _, ok, err := db.Document(c, e.chat.ID, d.ID, 5); err != nil || !ok || got.AddedBy != e.user {
			t.Fatalf("Document = %+v, %v, %v", got, ok, err)
		}
		if found, err := db.SearchKnowledge(c, e.chat.ID, "parrot 東京", []float32{1, 0}, 3); err != nil || len(found) == 0 || found[0].Document.ID != d.ID {
			t.Fatalf("SearchKnowledge = %+v, %v", found, err)
		}
		if gone, ok, err := db.DeleteDocument(c, e.chat.ID, d.ID); err != nil || !ok || gone.Chat != chat {
			t.Fatalf("DeleteDocument = %+v, %v, %v", gone, ok, err)
		}
	}
}
