package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory/memorytest"
)

// A group's answer mode changes what comes of its messages, and nothing
// else: "every" answers what would be context — but never the linked
// channel's posts or another bot — and "off" keeps what would be answered
// as context; commands work in both, and a private chat is answered
// whatever its mode.
func TestAnswerModeShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		want map[string]outcome
	}{
		{"every", map[string]outcome{"supergroup_chatter": answered, "anonymous_admin_chatter": answered, "forum_topic_chatter": answered,
			"automatic_forward_mentioning_bot": kept, "other_bot_mention": ignoredOnPurpose, "command_anonymous_admin": fixedReply, "private_text": answered}},
		{"off", map[string]outcome{"supergroup_mention": kept, "supergroup_reply_to_bot": kept, "forum_topic_mention": kept,
			"supergroup_chatter": kept, "command_anonymous_admin": fixedReply, "private_text": answered}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			tg := newTelegram(t, false)
			url := memorytest.URL(t)
			db := memorytest.OpenURL(t, url)
			var mu sync.Mutex
			asked := map[int64]bool{}
			run(t, tg, db, answerFunc(func(_ context.Context, in agent.Input) (agent.Output, error) {
				mu.Lock()
				defer mu.Unlock()
				asked[in.UpdateID] = true
				return agent.Output{Text: fmt.Sprintf("Answer for update %d.", in.UpdateID)}, nil
			}), 5)
			files := loadShapes(t, tg)
			fixtures := map[string]fixture{}
			var order []shape
			for _, s := range shapes {
				if want, ok := tc.want[s.file]; ok {
					var f fixture
					_ = json.Unmarshal(files[s.file], &f)
					fixtures[s.file], s.outcome = f, want
					order = append(order, s)
				}
			}
			slices.SortFunc(order, func(a, b shape) int { return int(fixtures[a.file].UpdateID - fixtures[b.file].UpdateID) }) // as Telegram sends them
			for _, s := range order {
				f, want := fixtures[s.file], s.outcome
				if err := db.SetChatAnswerMode(context.Background(), f.Message.Chat.ID, 7_123_456_789, tc.mode); err != nil {
					t.Fatal(err)
				}
				tg.PushRawUpdate(files[s.file])
				waitFor(t, tg, s.file+" finished", func() bool { return allFinished(db, map[string]fixture{s.file: f}) })
				mu.Lock()
				wasAsked := asked[f.UpdateID]
				mu.Unlock()
				if wasAsked != (want == answered) {
					t.Errorf("%s: model asked = %v; want %v", s.file, wasAsked, want == answered)
				}
				checkOutcome(t, tg, url, s, f)
			}
		})
	}
}
