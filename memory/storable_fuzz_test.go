package memory

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStorable checks what the inbox makes of any update: valid JSON stays
// valid JSON of the same shape, in UTF-8, with no U+0000 and no lone
// surrogate left for PostgreSQL's jsonb to refuse.
func FuzzStorable(f *testing.F) {
	for _, seed := range []string{
		`{"update_id":1,"message":{"text":"hi"}}`,
		`{"a":"\u0000","\u0000":1}`,
		`{"a":"\ud800","b":"\udc00\ud83d\ude00","c":"\\u0000"}`,
		"{\"a\":\"\xff\xfe\"}",
		`{"n":9007199254740993,"m":-1e400,"f":0.10}`,
		`[1,"x",{"y":null}]`,
		`not json \u0000`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := storable(raw)
		if !json.Valid(raw) {
			return // the inbox refuses it and says why
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("storable(%q) = %q: not valid UTF-8 JSON", raw, out)
		}
		if bytes.Equal(out, raw) {
			return // kept as it came: it had nothing jsonb refuses
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if s := decoded(v); strings.ContainsRune(s, 0) {
			t.Fatalf("storable(%q) = %q still holds U+0000", raw, out)
		}
		// Written anew, it holds no escape jsonb refuses (the encoder
		// writes text as UTF-8): a second pass changes nothing.
		if again := storable(out); !bytes.Equal(again, out) {
			t.Fatalf("storable(%q) = %q, and again %q", raw, out, again)
		}
	})
}

// decoded is every string and key of v, and every number's digits, joined.
func decoded(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case []any:
		var b strings.Builder
		for _, e := range x {
			b.WriteString(decoded(e))
		}
		return b.String()
	case map[string]any:
		var b strings.Builder
		for k, e := range x {
			b.WriteString(k + decoded(e))
		}
		return b.String()
	}
	return ""
}
