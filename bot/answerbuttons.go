package bot

import (
	"encoding/json"
	"strings"

	"github.com/ryo-bot/ryo/stages"
)

// The buttons under an answer. They go under the answer's last text
// message, the one the person reads last (stages.Turn.Finish): with an
// answer too long for messages, the part that says the file follows; the
// files a turn's tools made come after it, without buttons.

// regeneratePrefix begins a regenerate button's data:
// "r1:<update id>:<chat id>", version 1; the update is the turn whose
// answer it makes again.
const regeneratePrefix = "r1:"

// regenerateText is the regenerate button's label.
const regenerateText = "🔄"

// answerButtons are the buttons under the answer to turn t, about which
// about tells. An answer that asks to confirm an action carries none of
// its own (its prompt has ✅/❌), nor does one that goes on after a
// confirmation: its action ran, and the model's answer to its result is
// not asked for again. A stopped answer carries 🔄: someone stopped it
// because it went wrong, and another one may not. When a newer answer
// comes, an older one loses its 🔄 and keeps the rest (takeOff).
func (b *Bot) answerButtons(t talk, about answerAbout) []stages.Button {
	var buttons []stages.Button
	if !about.Held && t.prepare == nil {
		buttons = append(buttons, stages.Button{Text: regenerateText, Data: regenerateData(t.id, t.place.ChatID)})
	}
	if inspect := inspectButton(t, about); inspect != nil { // inspect.go
		buttons = append(buttons, *inspect)
	}
	return buttons
}

// regenerateData is the data of the regenerate button of turn update in
// chat.
func regenerateData(update, chat int64) string {
	return turnData(regeneratePrefix, update, chat)
}

// parseRegenerate reads a regenerate button's data, in the one form
// regenerateData writes (parseTurnData).
func parseRegenerate(data string) (update, chat int64, ok bool) {
	return parseTurnData(regeneratePrefix, data)
}

// shownButton is a button under an answer, as its metadata keeps it.
type shownButton struct {
	Text string `json:"text"`
	Data string `json:"data"`
}

// withButtons adds to an answer's metadata the message that carries its
// buttons, and the buttons: those that stay when a newer answer takes
// its 🔄 off.
func withButtons(meta json.RawMessage, id int, buttons []stages.Button) json.RawMessage {
	fields := map[string]any{}
	_ = json.Unmarshal(meta, &fields) // stored by answerMetadata; an unreadable one is replaced
	shown := []shownButton{}
	for _, b := range buttons {
		shown = append(shown, shownButton{Text: b.Text, Data: b.Data})
	}
	fields["buttons_on"], fields["buttons"] = id, shown
	out, _ := json.Marshal(fields)
	return out
}

// withoutRegenerate are an older answer's buttons once its 🔄 is taken
// off; had is false when it had none to take off.
func withoutRegenerate(shown []shownButton) (kept []stages.Button, had bool) {
	for _, b := range shown {
		if strings.HasPrefix(b.Data, regeneratePrefix) {
			had = true
			continue
		}
		kept = append(kept, stages.Button{Text: b.Text, Data: b.Data})
	}
	return kept, had
}
