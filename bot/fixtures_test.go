package bot

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/bot/intake"
)

// The update fixtures in testdata/updates are updates as Telegram sends
// them, with Telegram's id ranges. What only the running test knows is
// written as placeholders, filled in by loadShapes: the bot they are sent to
// ({{bot_id}}, {{bot}} for its username, {{bot_name}} for its first name)
// and the forum topic the fake Telegram made ({{topic}}). A string that is
// all one placeholder with a number for its value becomes that number;
// inside text a placeholder is replaced, and the entity offsets and lengths,
// written for the text as it stands in the file, move with it, in UTF-16
// units as Telegram counts. Files in testdata/updates/unstorable are kept
// byte for byte: their text is what the database cannot store.

// testFill is what the fixtures are filled with in tests that run no fake
// Telegram.
var testFill = map[string]string{"{{bot_id}}": "7900000001", "{{bot}}": "ryo_test_bot", "{{bot_name}}": "Ryo", "{{topic}}": "4217"}

// loadShapes reads the update fixtures of dir, named by file name without
// ".json", with their placeholders filled in.
func loadShapes(tb testing.TB, dir string, fill map[string]string) map[string][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures in %s: %v", dir, err)
	}
	shapes := make(map[string][]byte, len(paths))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		if raw, err = fillIn(raw, fill); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		shapes[strings.TrimSuffix(filepath.Base(p), ".json")] = raw
	}
	return shapes
}

// fillIn fills the placeholders of a fixture. One without placeholders is
// returned as it is, so that it keeps Telegram's field order and any odd
// bytes.
func fillIn(raw []byte, fill map[string]string) ([]byte, error) {
	if !bytes.Contains(raw, []byte("{{")) {
		return raw, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	err := e.Encode(fillValue(v, fill))
	return bytes.TrimSpace(out.Bytes()), err
}

func fillValue(v any, fill map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		moveEntities(v, "text", "entities", fill)
		moveEntities(v, "caption", "caption_entities", fill)
		for k, x := range v {
			v[k] = fillValue(x, fill)
		}
	case []any:
		for i, x := range v {
			v[i] = fillValue(x, fill)
		}
	case string:
		if n, err := strconv.ParseInt(fill[v], 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n, 10))
		}
		return fillText(v, fill)
	}
	return v
}

func fillText(s string, fill map[string]string) string {
	for ph, value := range fill {
		s = strings.ReplaceAll(s, ph, value)
	}
	return s
}

// moveEntities shifts and stretches the entities of a text whose
// placeholders are about to be filled in.
func moveEntities(obj map[string]any, textKey, entitiesKey string, fill map[string]string) {
	text, _ := obj[textKey].(string)
	entities, _ := obj[entitiesKey].([]any)
	type change struct{ at, from, to int }
	var changes []change
	for ph, value := range fill {
		for i := 0; ; {
			j := strings.Index(text[i:], ph)
			if j < 0 {
				break
			}
			changes = append(changes, change{utf16Len(text[:i+j]), utf16Len(ph), utf16Len(value)})
			i += j + len(ph)
		}
	}
	for _, x := range entities {
		e, ok := x.(map[string]any)
		if !ok {
			continue
		}
		off, _ := e["offset"].(json.Number).Int64()
		n, _ := e["length"].(json.Number).Int64()
		newOff, newLen := off, n
		for _, c := range changes {
			switch d := int64(c.to - c.from); {
			case int64(c.at+c.from) <= off:
				newOff += d
			case int64(c.at) >= off && int64(c.at+c.from) <= off+n:
				newLen += d
			}
		}
		e["offset"], e["length"] = json.Number(strconv.FormatInt(newOff, 10)), json.Number(strconv.FormatInt(newLen, 10))
	}
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// TestFixturesAreUpdates checks the fixtures themselves: each is an update
// with an update_id near 10⁹, all different, and its mentions of the bot
// cover exactly "@username" once filled in.
func TestFixturesAreUpdates(t *testing.T) {
	fill := maps.Clone(testFill)
	fill["{{bot}}"] = "some_much_longer_bot_name" // entities must move with it
	seen := map[int64]string{}
	for name, raw := range loadShapes(t, "testdata/updates", fill) {
		if bytes.Contains(raw, []byte("{{")) {
			t.Errorf("%s: a placeholder is left: %s", name, raw)
		}
		var u struct {
			ID      int64 `json:"update_id"`
			Message *struct {
				Text     string                 `json:"text"`
				Entities []models.MessageEntity `json:"entities"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &u); err != nil && name != "message_is_not_an_object" {
			t.Errorf("%s: %v", name, err)
		}
		if u.ID < 1e9 || u.ID > 2e9 || seen[u.ID] != "" {
			t.Errorf("%s: update_id %d is not near 10⁹ or is also %s's", name, u.ID, seen[u.ID])
		}
		seen[u.ID] = name
		if u.Message == nil {
			continue
		}
		mention := "@" + fill["{{bot}}"]
		covered := slices.ContainsFunc(u.Message.Entities, func(e models.MessageEntity) bool {
			return e.Type == models.MessageEntityTypeMention && entityText(u.Message.Text, e) == mention
		})
		if strings.Contains(u.Message.Text, mention) && !strings.HasPrefix(u.Message.Text, "/") && !covered {
			t.Errorf("%s: no mention entity covers %s in %q: %+v", name, mention, u.Message.Text, u.Message.Entities)
		}
	}
}

// Intake reads a message's sender from the raw update as the bot reads it
// from the decoded one: the chat it was sent on behalf of, else its author.
func TestIntakeReadsTheSenderAsTheBotDoes(t *testing.T) {
	for name, raw := range loadShapes(t, "testdata/updates", testFill) {
		in, ok := intake.Read(raw)
		upd, _, err := decodeUpdate(raw)
		if !ok || err != nil || upd.Message == nil {
			continue
		}
		want := int64(0)
		if from := senderOf(upd.Message); from != nil {
			want = from.ID
		}
		if in.Sender != want {
			t.Errorf("%s: intake reads sender %d; the bot reads %d", name, in.Sender, want)
		}
	}
}
