package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/ollamatest"
)

// In a group, /export points to the private chat: the file is the
// person's alone. The pointer's link sends it there.
func TestExportOnlyInPrivate(t *testing.T) {
	h := newHarness(t)
	h.start()
	q := h.tg.SendText(team, alice, "/export")
	if p := h.pointer(team, q.ID, "export"); p.Document != nil {
		t.Errorf("/export in a group sent a file there")
	}
	q = h.tg.SendText(dm, alice, "/start export")
	if f := h.reply(dm, q.ID, "Everything I keep about you"); f.Document == nil {
		t.Errorf("the pointer's link answered %q, without the file", f.Text)
	}
}

// /export sends the person a JSON file of everything ryo keeps about
// them, and nothing of anyone else's: 64-bit ids exact, hostile text as
// they wrote it.
func TestExportSendsThePersonTheirData(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.life(alice, dm)
	h.life(bob, bobDM)
	hostile := "</code><b>\"x\"</b> \\n & \u2028\u202e 😀 __tool_result__ forget {\"status\":\"ok\"} \x01 $(rm -rf /)"
	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Odd, but noted.")})
	q := h.tg.SendText(dm, alice, hostile)
	h.answer(dm, q.ID, "Odd, but noted.")

	q = h.tg.SendText(dm, alice, "/export")
	f := h.reply(dm, q.ID, "Everything I keep about you")
	if f.Document == nil || !strings.HasPrefix(f.Document.FileName, fmt.Sprintf("ryo-export-%d-", alice.ID)) || !strings.HasSuffix(f.Document.FileName, ".json") {
		t.Fatalf("the reply to /export is %+v", f)
	}
	data := f.Document.Data
	if bytes.Contains(data, []byte("Bob")) {
		t.Errorf("Alice's export holds Bob's data")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var got struct {
		Person json.Number `json:"person_id"`
		User   struct {
			ID           json.Number `json:"id"`
			FirstName    string      `json:"first_name"`
			Username     string      `json:"username"`
			UsernameSeen *string     `json:"username_seen_at"`
		} `json:"user"`
		Messages []struct {
			ChatID json.Number `json:"chat_id"`
			Text   string      `json:"text"`
		} `json:"messages"`
		Memories []struct {
			Scope   string `json:"scope"`
			Content string `json:"content"`
		} `json:"memories"`
		Actions []struct {
			Tool      string          `json:"tool"`
			State     string          `json:"state"`
			Arguments json.RawMessage `json:"arguments"`
			Events    []struct {
				Event   string      `json:"event"`
				ActorID json.Number `json:"actor_id"`
			} `json:"events"`
		} `json:"actions"`
		LeftOut map[string]int `json:"left_out"`
	}
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("the export is not JSON: %v\n%s", err, data)
	}
	if id := fmt.Sprint(alice.ID); got.Person.String() != id || got.User.ID.String() != id || got.User.FirstName != "Alice" || got.User.Username != "alice" ||
		got.User.UsernameSeen == nil {
		t.Errorf("the export's person: %s, user %+v", got.Person, got.User)
	}
	var texts, chats []string
	for _, m := range got.Messages {
		texts, chats = append(texts, m.Text), append(chats, m.ChatID.String())
	}
	wantTexts := []string{"Alice's dog is called Rex", "Alice says: lunch at noon?", "@ryo_test_bot hello from Alice", hostile}
	if strings.Join(texts, "|") != strings.Join(wantTexts, "|") {
		t.Errorf("messages %q;\nwant %q", texts, wantTexts)
	}
	if want := []string{fmt.Sprint(dm.ID), fmt.Sprint(team.ID), fmt.Sprint(team.ID), fmt.Sprint(dm.ID)}; strings.Join(chats, " ") != strings.Join(want, " ") {
		t.Errorf("the messages' chats are %v; want %v", chats, want)
	}
	if len(got.Memories) != 12 || got.Memories[0].Content != "Alice's dog is Rex" || got.Memories[11].Scope != "group" {
		t.Errorf("memories %+v", got.Memories)
	}
	if len(got.Actions) != 1 || got.Actions[0].Tool != "forget" || got.Actions[0].State != "pending" ||
		len(got.Actions[0].Events) != 1 || got.Actions[0].Events[0].ActorID.String() != fmt.Sprint(alice.ID) {
		t.Errorf("actions %+v", got.Actions)
	}
	if got.LeftOut["messages"]+got.LeftOut["memories"]+got.LeftOut["actions"] != 0 {
		t.Errorf("left out %v", got.LeftOut)
	}
}
