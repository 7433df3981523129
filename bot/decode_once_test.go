package bot

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
)

// decodeUpdateWhole is decodeUpdate as it was: the update checked to be an
// object, then decoded.
func decodeUpdateWhole(raw []byte) (models.Update, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return models.Update{}, false
	}
	var upd models.Update
	return upd, json.Unmarshal(raw, &upd) == nil
}

// Every fixture, and every odd input, decodes as it did when the update
// was first checked to be an object.
func TestDecodeUpdateOnce(t *testing.T) {
	inputs := map[string][]byte{"null": []byte("null"), "list": []byte(`[{"update_id":1}]`), "string": []byte(`"x"`),
		"spaced": []byte(" \n\t{\"update_id\":5}"), "trailing": []byte(`{"update_id":5} x`), "empty": nil, "broken": []byte(`{"update_id":`)}
	for name, raw := range loadShapes(t, "testdata/updates", testFill) {
		inputs[name] = raw
	}
	for name, raw := range inputs {
		want, whole := decodeUpdateWhole(raw)
		got, skipped, err := decodeUpdate(raw)
		if whole && (err != nil || skipped != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("%s: decoded %+v, %v, %v; want %+v", name, got, skipped, err, want)
		}
		if !whole && err == nil && skipped == nil && raw != nil && !strings.HasPrefix(name, "spaced") {
			t.Errorf("%s: decoded whole, which it did not before", name)
		}
	}
}

func BenchmarkDecodeUpdate(b *testing.B) {
	raw := loadShapes(b, "testdata/updates", testFill)["private_text"]
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decodeUpdate(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIsStopCommand(b *testing.B) {
	raw := loadShapes(b, "testdata/updates", testFill)["private_text"]
	b.ReportAllocs()
	for b.Loop() {
		isStopCommand("message", raw)
	}
}

// isStopCommandWhole is isStopCommand as it was: the whole message decoded.
func isStopCommandWhole(raw json.RawMessage) bool {
	var upd struct {
		Message models.Message `json:"message"`
	}
	if json.Unmarshal(raw, &upd) != nil || !startsWithCommand(&upd.Message) {
		return false
	}
	name, _, _ := strings.Cut(entityText(upd.Message.Text, upd.Message.Entities[0]), "@")
	return strings.EqualFold(name, "/stop")
}

// Every fixture, with its text made /stop and left as it is, is told a
// stop command as it was when the whole message was decoded.
func TestIsStopCommandReadsLess(t *testing.T) {
	updates := loadShapes(t, "testdata/updates", testFill)
	const stop = `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"%s","entities":[{"type":"bot_command","offset":0,"length":%d}]}}`
	updates["stop"] = fmt.Appendf(nil, stop, "/stop", 5)
	updates["stop for a bot"] = fmt.Appendf(nil, stop, "/STOP@ryo_test_bot now", 18)
	updates["stopwatch"] = fmt.Appendf(nil, stop, "/stopwatch", 10)
	for name, raw := range updates {
		if got, want := isStopCommand("message", raw), isStopCommandWhole(raw); got != want {
			t.Errorf("%s: stop %v, want %v", name, got, want)
		}
	}
	if !isStopCommand("message", updates["stop"]) || !isStopCommand("message", updates["stop for a bot"]) {
		t.Fatal("a stop command was not told one")
	}
	// The one difference: a stop whose message has a field the whole
	// decoding failed on is now told a stop, and goes on the lane of stops.
	odd := json.RawMessage(strings.Replace(string(updates["stop"]), `"date":1`, `"date":"soon"`, 1))
	if isStopCommandWhole(odd) || !isStopCommand("message", odd) {
		t.Fatal("a stop with an odd field")
	}
}
