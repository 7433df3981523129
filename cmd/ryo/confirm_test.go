package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// notebook is a test tool that deletes notes for good, and remembers each
// deletion, to count how often an action really ran.
type notebook struct {
	mu      sync.Mutex
	deleted []string
}

func (n *notebook) spec() toolbus.Spec {
	return toolbus.Spec{Name: "delete_note", Description: "Deletes one of the person's notes for good.",
		Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Delete my diary note.", Arguments: json.RawMessage(`{"title":"diary"}`)}},
		Schema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}`),
		Effect: toolbus.Destructive,
		Tool: toolbus.ToolFunc(func(_ context.Context, args json.RawMessage) (any, error) {
			var a struct{ Title string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			n.mu.Lock()
			defer n.mu.Unlock()
			n.deleted = append(n.deleted, a.Title)
			return map[string]any{"deleted": a.Title}, nil
		})}
}

func (n *notebook) runs() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.deleted)
}

// deleteNote is the model asking to delete a note.
func deleteNote(title string) string {
	t, _ := json.Marshal(title)
	return `{"reply":"I'll delete that note once you confirm.","command":{"intent":"delete_note","slots":{"title":` + string(t) +
		`},"confidence":0.9,"requiresConfirmation":false,"followUpQuestion":null},"tags":["notes"],"followUpQuestion":null}`
}

// confirmHarness is a harness whose model has the delete_note tool.
func confirmHarness(t *testing.T) (*harness, *notebook) {
	h := newHarness(t)
	n := &notebook{}
	h.tools = []toolbus.Spec{n.spec()}
	return h, n
}

// prompt waits for the message with the confirmation buttons in chat.
func (h *harness) prompt(chat telegramtest.Chat) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("the confirmation prompt", func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if hasPrompt(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// message returns the bot's message id in chat as it is now.
func (h *harness) message(chat telegramtest.Chat, id int) telegramtest.Message {
	h.t.Helper()
	for _, m := range h.tg.Messages(chat.ID) {
		if m.ID == id {
			return m
		}
	}
	h.t.Fatalf("no message %d in chat %d", id, chat.ID)
	return telegramtest.Message{}
}

// press presses the button labelled with prefix on message m, as user.
func (h *harness) press(chat telegramtest.Chat, user telegramtest.User, m telegramtest.Message, prefix string) string {
	h.t.Helper()
	for _, row := range m.Buttons() {
		for _, b := range row {
			if strings.HasPrefix(b.Text, prefix) {
				id, err := h.tg.Press(chat.ID, user, m.ID, b.Data)
				if err != nil {
					h.t.Fatal(err)
				}
				return id
			}
		}
	}
	h.t.Fatalf("message %d has no %q button: %+v", m.ID, prefix, m.Buttons())
	return ""
}

// pressAnswer waits until the press is answered and returns the answer.
func (h *harness) pressAnswer(query string) telegramtest.CallbackAnswer {
	h.t.Helper()
	var a telegramtest.CallbackAnswer
	h.waitFor("the press answered", func() bool {
		var ok bool
		a, ok = h.tg.CallbackAnswer(query)
		return ok
	})
	return a
}

// settled waits until the prompt shows text and has no buttons.
func (h *harness) settled(chat telegramtest.Chat, prompt int, text string) telegramtest.Message {
	h.t.Helper()
	h.waitFor("the prompt to show "+text, func() bool {
		m := h.message(chat, prompt)
		return strings.Contains(m.Text, text) && len(m.Buttons()) == 0
	})
	return h.message(chat, prompt)
}

func (h *harness) action(prompt telegramtest.Message) ryo.Action {
	h.t.Helper()
	for _, row := range prompt.Buttons() {
		for _, b := range row {
			id := strings.TrimSuffix(strings.TrimPrefix(b.Data, "act:"), ":y")
			if a, ok, err := h.db().Action(bg(h.t), id); ok && err == nil {
				return a
			}
		}
	}
	h.t.Fatalf("no stored action behind %+v", prompt.Buttons())
	return ryo.Action{}
}

// Asking for a destructive action shows it in full with two buttons; the
// requester's yes runs it once, and the conversation goes on with the
// model's answer, shown live under the prompt.
func TestConfirmRunsTheActionOnceAndTheConversationGoesOn(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("shopping list")},
		ollamatest.Reply{Content: envelope("Done — the note “shopping list” is gone.")})
	h.start()
	q := h.tg.SendText(dm, alice, "delete my shopping list note")
	p := h.prompt(dm)
	for _, want := range []string{"Confirm before I do this", "delete_note", "Deletes one of the person's notes for good.",
		`"title": "shopping list"`, "This cannot be undone.", "Expires at "} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("prompt %q does not show %q", p.Text, want)
		}
	}
	if p.ReplyTo != q.ID || p.ParseMode != "HTML" || !strings.Contains(p.Text, `<pre><code class="language-json">`) {
		t.Errorf("prompt = %+v; want HTML with the arguments as a JSON block, replying to the question", p)
	}
	buttons := p.Buttons()
	if len(buttons) != 1 || len(buttons[0]) != 2 || buttons[0][0].Text != "✅ Confirm" || buttons[0][1].Text != "❌ Cancel" {
		t.Fatalf("buttons = %+v", buttons)
	}
	for _, b := range buttons[0] {
		if len(b.Data) > 64 || strings.Contains(b.Data, "shopping") {
			t.Errorf("callback data %q must be a short opaque id", b.Data)
		}
	}
	h.answer(dm, q.ID, "I'll delete that note once you confirm.")
	if len(notes.runs()) != 0 || len(h.llm.Requests()) != 1 {
		t.Fatalf("before the yes: deleted %v, model calls %d; want nothing done", notes.runs(), len(h.llm.Requests()))
	}

	query := h.press(dm, alice, p, "✅")
	if a := h.pressAnswer(query); a.Text != "✅ Confirmed — doing it now." || a.ShowAlert {
		t.Fatalf("press answered %+v", a)
	}
	h.answer(dm, p.ID, "is gone")
	h.settled(dm, p.ID, "✅ Confirmed by Alice at ")
	if got := notes.runs(); len(got) != 1 || got[0] != "shopping list" {
		t.Fatalf("deleted %v; want the shopping list once", got)
	}
	shown := h.llm.Requests()[1].Messages
	if last := shown[len(shown)-1]; !strings.HasPrefix(last.Content, "__tool_result__ delete_note ") || !strings.Contains(last.Content, `"status":"ok"`) {
		t.Fatalf("the model was shown %q last; want the tool's result", last.Content)
	}
	h.waitFor("the conversation stored", func() bool {
		return len(history(t, h.db(), ryo.Place{ChatID: dm.ID})) == 4
	})
	got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
	if !strings.HasPrefix(got[2], "tool_result: __tool_result__ delete_note") || !strings.Contains(got[3], "is gone") {
		t.Fatalf("history = %q; want the question, the held answer, the result, the answer", got)
	}
	a := h.action(p)
	if a.State != ryo.ActionExecuted || a.ResultStatus != "ok" || !a.Settled || a.DecidedBy != alice.ID {
		t.Fatalf("stored action = %+v", a)
	}
}

// Cancel stores a cancelled result so that the model knows, says so in the
// prompt, and does nothing else.
func TestCancelLeavesEverythingAsItWas(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("diary")})
	h.start()
	h.tg.SendText(dm, alice, "delete my diary")
	p := h.prompt(dm)
	query := h.press(dm, alice, p, "❌")
	if a := h.pressAnswer(query); a.Text != "❌ Cancelled — nothing was done." {
		t.Fatalf("press answered %+v", a)
	}
	h.settled(dm, p.ID, "❌ Cancelled by Alice at ")
	if len(notes.runs()) != 0 || len(h.llm.Requests()) != 1 {
		t.Fatalf("after cancel: deleted %v, model calls %d", notes.runs(), len(h.llm.Requests()))
	}
	a := h.action(p)
	result, found, err := h.db().ToolResult(bg(t), a.Key)
	if err != nil || !found || !strings.Contains(result.Text, `"status":"cancelled"`) || !strings.Contains(result.Text, "Cancel") {
		t.Fatalf("stored result = %+v, %v, %v; want the cancellation for the model", result, found, err)
	}
}

// In a group only the person who asked decides: anyone else gets an alert
// and nothing changes; the audit records the attempt.
func TestAStrangersPressChangesNothing(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("plans")}, ollamatest.Reply{Content: envelope("Deleted the plans.")})
	h.start()
	h.tg.SendText(team, alice, "@ryo_test_bot delete the plans note")
	p := h.prompt(team)
	if !strings.Contains(p.Text, "Only Alice can confirm or cancel this.") {
		t.Fatalf("group prompt %q does not say who decides", p.Text)
	}
	query := h.press(team, bob, p, "✅")
	if a := h.pressAnswer(query); !a.ShowAlert || a.Text != "Only Alice can confirm or cancel this." {
		t.Fatalf("stranger's press answered %+v", a)
	}
	if a := h.action(p); !a.Open() || len(notes.runs()) != 0 || len(h.message(team, p.ID).Buttons()) == 0 {
		t.Fatalf("after a stranger's press: action %s, deleted %v", a.State, notes.runs())
	}
	h.pressAnswer(h.press(team, alice, p, "✅"))
	h.answer(team, p.ID, "Deleted the plans.")
	if got := notes.runs(); len(got) != 1 {
		t.Fatalf("deleted %v; want once", got)
	}
	events, err := h.db().RefusedPresses(bg(t), 10, team.ID)
	if err != nil || len(events) != 1 || !slices.ContainsFunc(events, func(e memory.ActionEvent) bool { return e.Event == "refused" && e.ActorID == bob.ID }) {
		t.Fatalf("refused presses = %+v, %v; want Bob's refused press recorded", events, err)
	}
}

// Pressing twice, or many presses at once — yes and no mixed — decide
// once and run the action at most once; every press is answered.
func TestManyPressesDecideOnce(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("todo")}, ollamatest.Reply{Content: envelope("The todo note is gone.")})
	h.start()
	h.tg.SendText(dm, alice, "delete todo")
	p := h.prompt(dm)
	var queries []string
	for i := range 10 {
		button := "✅"
		if i%3 == 2 {
			button = "❌"
		}
		queries = append(queries, h.press(dm, alice, p, button))
	}
	for _, q := range queries {
		h.pressAnswer(q)
	}
	a := h.action(p)
	h.waitFor("the action decided and settled", func() bool { a = h.action(p); return a.Settled })
	switch a.State {
	case ryo.ActionExecuted:
		h.answer(dm, p.ID, "gone")
		if got := notes.runs(); len(got) != 1 {
			t.Fatalf("deleted %v; want exactly once", got)
		}
	case ryo.ActionCancelled:
		if got := notes.runs(); len(got) != 0 {
			t.Fatalf("deleted %v after the cancel won", got)
		}
	default:
		t.Fatalf("action state %s", a.State)
	}
	already := 0
	for _, q := range queries {
		if a, _ := h.tg.CallbackAnswer(q); strings.HasPrefix(a.Text, "This was already") {
			already++
		}
	}
	if already != len(queries)-1 {
		t.Fatalf("%d presses were told it was decided already; want %d", already, len(queries)-1)
	}
}

// A press after the request expired says so and does nothing; the prompt
// shows it expired, and the model is told.
func TestPressAfterExpiry(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("old")})
	h.start()
	h.tg.SendText(dm, alice, "delete old")
	p := h.prompt(dm)
	a := h.action(p)
	memorytest.Exec(t, h.env["DATABASE_URL"], fmt.Sprintf(`update actions set expires_at = now() - interval '1 second' where id = '%s'`, a.ID))
	query := h.press(dm, alice, p, "✅")
	if got := h.pressAnswer(query); !strings.Contains(got.Text, "expired") {
		t.Fatalf("press answered %+v", got)
	}
	h.settled(dm, p.ID, "⌛ Expired at ")
	if len(notes.runs()) != 0 {
		t.Fatalf("deleted %v after expiry", notes.runs())
	}
	if result, found, _ := h.db().ToolResult(bg(t), a.Key); !found || !strings.Contains(result.Text, `"code":"expired"`) {
		t.Fatalf("stored result = %+v; want the expiry for the model", result)
	}
}

// Pending actions survive a restart: the press after it runs the action
// once; actions that expired meanwhile are swept at start and their
// prompts edited.
func TestPressAfterARestart(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("draft")}, ollamatest.Reply{Content: deleteNote("stale")})
	h.start()
	h.tg.SendText(dm, alice, "delete draft")
	first := h.prompt(dm)
	h.waitFor("the first turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	h.tg.SendText(dm, alice, "delete stale")
	var second telegramtest.Message
	h.waitFor("the second prompt", func() bool {
		for _, m := range h.tg.BotMessages(dm.ID) {
			if m.ID != first.ID && hasPrompt(m) {
				second = m
				return true
			}
		}
		return false
	})
	h.stopMain()
	memorytest.Exec(t, h.env["DATABASE_URL"], fmt.Sprintf(`update actions set expires_at = now() - interval '1 second' where id = '%s'`, h.action(second).ID))

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("The draft is deleted.")})
	h.start()
	h.settled(dm, second.ID, "⌛ Expired at ")
	h.pressAnswer(h.press(dm, alice, first, "✅"))
	h.answer(dm, first.ID, "The draft is deleted.")
	if got := notes.runs(); len(got) != 1 || got[0] != "draft" {
		t.Fatalf("deleted %v; want the draft once", got)
	}
}

// Button data that is not an action's, names an unknown action, or is
// copied into another chat is answered as a dead button and changes
// nothing.
func TestForgedOrUnknownPresses(t *testing.T) {
	h, notes := confirmHarness(t)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("secret")})
	h.start()
	h.tg.SendText(dm, alice, "delete secret")
	p := h.prompt(dm)
	a := h.action(p)
	h.tg.SendText(bobDM, bob, "/start")
	h.waitFor("bob's start", func() bool { return len(h.tg.BotMessages(bobDM.ID)) == 1 })
	forged := []string{
		h.tg.PressForged(dm.ID, alice, p.ID, "act:doesnotexist:y"),
		h.tg.PressForged(dm.ID, alice, p.ID, "act:"+a.ID+":maybe"),
		h.tg.PressForged(dm.ID, alice, p.ID, "rm -rf /"),
		h.tg.PressForged(bobDM.ID, bob, h.tg.BotMessages(bobDM.ID)[0].ID, "act:"+a.ID+":y"),
	}
	for _, q := range forged {
		if got := h.pressAnswer(q); got.Text != "This button no longer works." {
			t.Errorf("forged press answered %+v", got)
		}
	}
	if a := h.action(p); !a.Open() || len(notes.runs()) != 0 {
		t.Fatalf("after forged presses: action %s, deleted %v", a.State, notes.runs())
	}
}

// Arguments too long for the prompt come in full as a file; the prompt
// points to it and never shows a cut version that could be approved.
func TestLongArgumentsComeAsAFile(t *testing.T) {
	h, notes := confirmHarness(t)
	title := strings.Repeat("a very long title ", 300)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote(title)}, ollamatest.Reply{Content: envelope("Deleted.")})
	h.start()
	h.tg.SendText(dm, alice, "delete the long one")
	p := h.prompt(dm)
	var file telegramtest.Message
	for _, m := range h.tg.BotMessages(dm.ID) {
		if m.Document != nil {
			file = m
		}
	}
	if file.Document == nil || !strings.Contains(string(file.Document.Data), title) || !strings.HasSuffix(file.Document.FileName, ".json") {
		t.Fatalf("no file with the full arguments: %+v", file)
	}
	if p.ReplyTo != file.ID || !strings.Contains(p.Text, "in the file above, in full") || strings.Contains(p.Text, "a very long title") {
		t.Fatalf("prompt = %q replying to %d; want a pointer to file %d", p.Text, p.ReplyTo, file.ID)
	}
	h.pressAnswer(h.press(dm, alice, p, "✅"))
	h.answer(dm, p.ID, "Deleted.")
	if got := notes.runs(); len(got) != 1 || got[0] != title {
		t.Fatalf("deleted %d titles; want the whole title once", len(got))
	}
}

// A tool that changes something waits when the model asks to check first,
// and — with RYO_CONFIRM=changes — always.
func TestMutatingToolsWaitWhenAskedOrByPolicy(t *testing.T) {
	for _, tt := range []struct {
		name, policy string
		ask          bool
		reason       string
	}{
		{"model asks", "destructive", true, "I'd like your yes"},
		{"policy", "changes", false, "This changes something"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.env["RYO_CONFIRM"] = tt.policy
			var saved []string
			var mu sync.Mutex
			h.tools = []toolbus.Spec{{Name: "save_note", Description: "Saves a note.", Effect: toolbus.Mutating,
				Category: toolbus.MathFinance, Examples: []toolbus.Example{{Question: "Save a note called diary.", Arguments: json.RawMessage(`{"title":"diary"}`)}},
				Schema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"],"additionalProperties":false}`),
				Tool: toolbus.ToolFunc(func(_ context.Context, args json.RawMessage) (any, error) {
					mu.Lock()
					defer mu.Unlock()
					saved = append(saved, string(args))
					return "saved", nil
				})}}
			cmd := strings.Replace(strings.Replace(deleteNote("idea"), "delete_note", "save_note", 1),
				`"requiresConfirmation":false`, fmt.Sprintf(`"requiresConfirmation":%v`, tt.ask), 1)
			h.llm.Enqueue(ollamatest.Reply{Content: cmd}, ollamatest.Reply{Content: envelope("Saved your idea.")})
			h.start()
			h.tg.SendText(dm, alice, "save my idea")
			p := h.prompt(dm)
			if !strings.Contains(p.Text, tt.reason) || strings.Contains(p.Text, "cannot be undone") {
				t.Fatalf("prompt %q; want the reason %q", p.Text, tt.reason)
			}
			h.pressAnswer(h.press(dm, alice, p, "✅"))
			h.answer(dm, p.ID, "Saved your idea.")
			mu.Lock()
			defer mu.Unlock()
			if len(saved) != 1 {
				t.Fatalf("saved %v; want once", saved)
			}
		})
	}
}

// /approvals shows admins the audit log; others are not shown it.
func TestApprovalsForAdminsOnly(t *testing.T) {
	h, _ := confirmHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("x")})
	h.start()
	h.tg.SendText(dm, alice, "delete x")
	p := h.prompt(dm)
	h.pressAnswer(h.press(dm, alice, p, "❌"))
	h.settled(dm, p.ID, "Cancelled")
	q := h.tg.SendText(dm, alice, "/approvals")
	msgs := h.answer(dm, q.ID, "Recent confirmations")
	text := msgs[len(msgs)-1].Text
	for _, want := range []string{"❌ cancelled · delete_note {\"title\":\"x\"} · by Alice", "📝 requested · delete_note"} {
		if !strings.Contains(text, want) {
			t.Errorf("/approvals shows %q; want %q in it", text, want)
		}
	}
	q = h.tg.SendText(bobDM, bob, "/approvals")
	if msgs := h.answer(bobDM, q.ID, "I don't know /approvals"); strings.Contains(msgs[0].Text, "delete_note") {
		t.Fatalf("a non-admin was shown %q", msgs[0].Text)
	}
}

// A flood of presses by someone who may not decide is one audit entry with
// its count: /approvals still shows the real decisions, first.
func TestRefusedPressesCannotFloodApprovals(t *testing.T) {
	h, notes := confirmHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("plans")}, ollamatest.Reply{Content: envelope("Deleted the plans.")})
	h.start()
	h.tg.SendText(team, alice, "@ryo_test_bot delete the plans note")
	p := h.prompt(team)
	const presses = 40
	var last string
	for range presses {
		last = h.press(team, bob, p, "✅")
	}
	h.pressAnswer(last)
	h.pressAnswer(h.press(team, alice, p, "✅"))
	h.answer(team, p.ID, "Deleted the plans.")
	if len(notes.runs()) != 1 {
		t.Fatalf("deleted %v; want once", notes.runs())
	}
	q := h.tg.SendText(dm, alice, "/approvals")
	msgs := h.answer(dm, q.ID, "Recent confirmations")
	text := msgs[len(msgs)-1].Text
	decisions, refused, _ := strings.Cut(text, "🚫")
	for _, want := range []string{"✅ confirmed · delete_note", "⚙️ executed (ok)", "📝 requested · delete_note"} {
		if !strings.Contains(decisions, want) {
			t.Errorf("/approvals lacks %q among the decisions:\n%s", want, text)
		}
	}
	if want := fmt.Sprintf("pressed %d times by Bob, who may not decide", presses); !strings.Contains(refused, want) || strings.Count(text, "Bob") != 1 {
		t.Errorf("/approvals does not show Bob's %d presses on one line (%q):\n%s", presses, want, text)
	}
}

// With RYO_ADMINS_DECIDE=on an admin may decide someone else's action, and
// the prompt says who did.
func TestAdminsMayDecideWhenAllowed(t *testing.T) {
	h, notes := confirmHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(bob.ID)
	h.env["RYO_ADMINS_DECIDE"] = "on"
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("minutes")}, ollamatest.Reply{Content: envelope("The minutes are deleted.")})
	h.start()
	h.tg.SendText(team, alice, "@ryo_test_bot delete the minutes note")
	p := h.prompt(team)
	h.pressAnswer(h.press(team, bob, p, "✅"))
	h.answer(team, p.ID, "The minutes are deleted.")
	h.settled(team, p.ID, "✅ Confirmed by Bob at ")
	if got := notes.runs(); len(got) != 1 {
		t.Fatalf("deleted %v; want once", got)
	}
}

// A press that comes while the database is away waits at Telegram (it
// cannot be stored) and is handled, once, when the database is back.
func TestPressWhileTheDatabaseIsAway(t *testing.T) {
	h, notes := confirmHarness(t)
	u, _ := url.Parse(h.env["DATABASE_URL"])
	proxy := newProxy(t, u.Host)
	u.Host = proxy.addr()
	h.env["DATABASE_URL"] = u.String()
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("budget")}, ollamatest.Reply{Content: envelope("The budget note is gone.")})
	h.start()
	h.tg.SendText(dm, alice, "delete budget")
	p := h.prompt(dm)
	h.waitFor("the turn done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })

	proxy.cut()
	query := h.press(dm, alice, p, "✅")
	polls := len(h.tg.Calls("getUpdates"))
	h.waitFor("the poller to try again", func() bool { return len(h.tg.Calls("getUpdates")) >= polls+2 })
	if _, answered := h.tg.CallbackAnswer(query); answered || len(notes.runs()) != 0 || h.tg.PendingUpdates() != 1 {
		t.Fatalf("while the database is away: answered %v, deleted %v, pending %d; want the press kept by Telegram",
			answered, notes.runs(), h.tg.PendingUpdates())
	}
	proxy.restore()
	h.pressAnswer(query)
	h.answer(dm, p.ID, "The budget note is gone.")
	if got := notes.runs(); len(got) != 1 {
		t.Fatalf("deleted %v; want once", got)
	}
}

// askAnonymously sends text to the bot in group as an anonymous admin of
// the group would: from the group itself, signed by Alice.
func (h *harness) askAnonymously(group telegramtest.Chat, text string) {
	h.t.Helper()
	chat := map[string]any{"id": group.ID, "title": group.Title, "type": "supergroup"}
	text = "@" + botUser.Username + " " + text
	h.tg.PushUpdate(map[string]any{"message": map[string]any{"message_id": 512377, "date": time.Now().Unix(),
		"from": groupAnonymousBot, "sender_chat": chat, "chat": chat, "author_signature": "Alice", "text": text,
		"entities": []any{map[string]any{"type": "mention", "offset": 0, "length": len(botUser.Username) + 1}}}})
}

// groupAnonymousBot is the stand-in Telegram puts in "from" of a message an
// anonymous group admin sends.
var groupAnonymousBot = map[string]any{"id": 1087968824, "is_bot": true, "first_name": "Group", "username": "GroupAnonymousBot"}

// An anonymous administrator of a group asks for something that needs a
// yes. The message comes as the group (sender_chat), so the group is the
// requester; the press comes from the admin's own account. Any
// administrator of the group may decide, as Telegram lists them; a member
// who is no administrator may not.
func TestAnonymousAdminDecidesTheGroupsAction(t *testing.T) {
	h, notes := confirmHarness(t)
	ops := telegramtest.NewSupergroup("Ops")
	h.tg.SetMember(ops, alice, telegramtest.StatusAdministrator)
	h.llm.Enqueue(ollamatest.Reply{Content: deleteNote("minutes")},
		ollamatest.Reply{Content: envelope("Done — the minutes note is gone.")})
	h.start()
	h.tg.SendText(ops, bob, "hi all") // a member of the group, no administrator
	h.askAnonymously(ops, "delete the minutes note")
	p := h.prompt(ops)
	if a := h.pressAnswer(h.press(ops, bob, p, "✅")); !a.ShowAlert || a.Text != "Only an administrator of this group can confirm or cancel this." {
		t.Fatalf("a member who is no administrator pressed ✅ and was answered %q (alert %v)", a.Text, a.ShowAlert)
	}
	answer := h.pressAnswer(h.press(ops, alice, p, "✅"))
	if a := h.action(p); answer.Text != "✅ Confirmed — doing it now." || a.State == ryo.ActionPending {
		t.Fatalf("the anonymous admin's own press was answered %q (alert %v); the action stays %s, requested by %d (the group)",
			answer.Text, answer.ShowAlert, a.State, a.Requester)
	}
	h.waitFor("the note deleted", func() bool { return len(notes.runs()) == 1 })
}

// Long names cannot push the refused presses out of /approvals: the reply
// is one message, and what does not fit is the oldest decisions, not the
// presses of people who may not decide.
func TestLongNamesCannotHideRefusedPresses(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = fmt.Sprint(alice.ID)
	h.start()
	ctx, db := bg(t), h.db()
	asker := ryo.User{ID: 7_100_000_001, FirstName: strings.Repeat("Ａ", 64), LastName: strings.Repeat("ａ", 64)}
	decider := ryo.User{ID: 7_100_000_002, FirstName: strings.Repeat("Ｄ", 64), LastName: strings.Repeat("ｄ", 64)}
	for _, u := range []ryo.User{asker, decider, {ID: bob.ID, FirstName: bob.FirstName}} {
		if _, err := db.SaveUser(ctx, u, false); err != nil {
			t.Fatal(err)
		}
	}
	place := ryo.Place{ChatID: team.ID}
	for i := range 11 {
		a := ryo.Action{ID: fmt.Sprintf("long%02d", i), Requester: asker.ID, CallID: "c", Tool: "forget_any",
			Args: json.RawMessage(`{"memory_id":1}`), ArgsHash: "h", Key: fmt.Sprintf("long-%d", i), Reason: toolbus.HoldDestructive,
			Origin: ryo.OriginAdmin, ExpiresAt: time.Now().Add(time.Hour)}
		if _, err := db.SaveCommandAction(ctx, int64(9_000_000+i), place, a); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := db.RefuseAction(ctx, a.ID, bob.ID); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := db.Decide(ctx, memory.Decision{ID: a.ID, Actor: decider.ID, Update: int64(9_100_000 + i)}, ryo.Message{}); err != nil {
			t.Fatal(err)
		}
	}
	q := h.tg.SendText(dm, alice, "/approvals")
	text := h.reply(dm, q.ID, "Recent confirmations").Text
	if !strings.Contains(text, "pressed by Bob, who may not decide") {
		t.Fatalf("/approvals does not show Bob's refused press:\n%s", text)
	}
	if !strings.Contains(text, "❌ cancelled · forget_any") {
		t.Fatalf("/approvals shows no decision:\n%s", text)
	}
}
