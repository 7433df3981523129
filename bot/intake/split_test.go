package intake

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// One update nested past encoding/json's depth limit costs that update,
// not the batch: the others are read, and it is kept apart for the dead
// letter.
func TestDecodeUpdatesPastTheDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	body := `{"ok":true,"result":[
		{"update_id":987654321,"message":{"message_id":4821,"date":1,"chat":{"id":7123456789,"type":"private"},"text":"hi, \"[{\""}},
		{"update_id":987654322,"message":{"x":` + deep + `}},
		{"update_id":987654323,"message":{"message_id":4822,"date":1,"chat":{"id":-1001234567890,"type":"supergroup"},"text":"]}"}}
	]}`
	if json.Unmarshal([]byte(body), new(any)) == nil {
		t.Fatal("encoding/json took the deep answer: the test no longer shows anything")
	}
	got, err := decodeUpdates(200, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Updates) != 2 || got.Updates[0].ID != 987654321 || got.Updates[1].ID != 987654323 || got.Updates[1].ChatID != -1001234567890 {
		t.Fatalf("updates = %+v; want the two beside the deep one", got.Updates)
	}
	if len(got.Unreadable) != 1 || !bytes.Contains(got.Unreadable[0], []byte(deep)) {
		t.Fatalf("unreadable = %d; want the deep update, whole", len(got.Unreadable))
	}
	for _, bad := range []string{`{"ok":false,"result":[]}`, `{"ok":true,"result":[1,]}`, `{"ok":true,"result":{}}`, `[` + deep + `]`, `{"ok":true,"result":["]}`} {
		if _, err := decodeUpdates(200, []byte(bad)); err == nil {
			t.Errorf("decodeUpdates(%.60s) took it", bad)
		}
	}
	if _, err := decodeUpdates(200, []byte(`{"ok":true,"result":[]}`)); err != nil {
		t.Errorf("an empty batch: %v", err)
	}
}

// An update_id of 2⁶³-1 cannot be confirmed (the offset is one more), so
// it is no readable id.
func TestReadRefusesAnIDThatCannotBeConfirmed(t *testing.T) {
	if u, ok := Read(json.RawMessage(`{"update_id":9223372036854775807,"message":{}}`)); ok {
		t.Fatalf("Read = %+v; want it refused", u)
	}
}

// Wherever encoding/json reads an answer, splitting it by its structure
// finds the same updates, byte for byte.
func FuzzSplitResult(f *testing.F) {
	f.Add([]byte(`{"ok":true,"result":[{"update_id":1,"message":{"text":"a,b]}"}},{"update_id":2}]}`))
	f.Add([]byte(`{ "result" : [ 1 , "x\"]" , [ ] ] , "ok" : true }`))
	f.Add([]byte(`{"ok":true,"result":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var resp struct {
			OK     bool              `json:"ok"`
			Result []json.RawMessage `json:"result"`
		}
		split, ok := splitResult(data)
		if json.Unmarshal(data, &resp) != nil || !resp.OK || resp.Result == nil || hasDuplicateKeys(data) {
			return
		}
		if !ok || len(split) != len(resp.Result) {
			t.Fatalf("split %d (%v), encoding/json %d", len(split), ok, len(resp.Result))
		}
		for i := range split {
			if !bytes.Equal(split[i], bytes.TrimSpace(resp.Result[i])) {
				t.Fatalf("update %d: split %q, encoding/json %q", i, split[i], resp.Result[i])
			}
		}
	})
}

// hasDuplicateKeys reports whether the top-level object names a key twice,
// or names "ok" or "result" in another case: encoding/json then takes the
// last, or matches without case, where the split takes the exact key.
func hasDuplicateKeys(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	if _, err := d.Token(); err != nil {
		return true
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return true
		}
		k := strings.ToLower(t.(string))
		if seen[k] || (k == "ok" || k == "result") && t.(string) != k {
			return true
		}
		seen[k] = true
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return true
		}
	}
	return false
}
