package telegramtest

import "testing"

// A link to tg://user in any of the spellings TDLib reads is a mention of
// that person; anything else stays a link.
func TestLinkEntity(t *testing.T) {
	tests := []struct {
		url  string
		id   int64 // 0: a text_link
		kind string
	}{
		{"tg://user?id=5123456789", 5123456789, "text_mention"},
		{"TG://USER?ID=5123456789", 5123456789, "text_mention"},
		{"tg:user?id=5123456789", 5123456789, "text_mention"},
		{"tg://user/?x=1&id=5123456789#top", 5123456789, "text_mention"},
		{"tg://user?id=1&id=2", 1, "text_mention"},
		{"tg://user?id=0", 0, "text_link"},
		{"tg://user?id=-5", 0, "text_link"},
		{"tg://user?id=+5", 0, "text_link"},
		{"tg://user?id=5x", 0, "text_link"},
		{"tg://user?id=1099511627776", 0, "text_link"},
		{"tg://user?uid=5", 0, "text_link"},
		{"tg://users?id=5", 0, "text_link"},
		{"tg://resolve?domain=alice", 0, "text_link"},
		{"https://t.me/alice", 0, "text_link"},
		{"xtg://user?id=5", 0, "text_link"},
	}
	for _, tt := range tests {
		e := linkEntity(tt.url)
		switch {
		case e.Type != tt.kind:
			t.Errorf("linkEntity(%q) is a %s; want a %s", tt.url, e.Type, tt.kind)
		case tt.id != 0 && (e.User == nil || e.User.ID != tt.id || e.URL != ""):
			t.Errorf("linkEntity(%q) = %+v; want a mention of %d", tt.url, e, tt.id)
		case tt.id == 0 && (e.User != nil || e.URL != tt.url):
			t.Errorf("linkEntity(%q) = %+v; want a link to it", tt.url, e)
		}
	}
}

// Telegram's parsers make a link to a person a text_mention carrying the
// person; the link's URL is gone.
func TestMentionsAreParsed(t *testing.T) {
	const bob = `"user":{"id":5123456789,"is_bot":false,"first_name":""}`
	tests := []struct {
		name      string
		parse     func(string) (formatted, error)
		src, text string
		entities  string
	}{
		{"HTML", parseHTML, `Hey <a href="tg://user?id=5123456789">Bob</a>`, "Hey Bob",
			`[{"type":"text_mention","offset":4,"length":3,` + bob + `}]`},
		{"HTML without href", parseHTML, `Hey <a>tg://user?id=5123456789</a>`, "Hey tg://user?id=5123456789",
			`[{"type":"text_mention","offset":4,"length":23,` + bob + `}]`},
		{"MarkdownV2", parseMarkdownV2, `Hey [Bob](tg://user?id=5123456789)`, "Hey Bob",
			`[{"type":"text_mention","offset":4,"length":3,` + bob + `}]`},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.src)
		if err != nil || got.text != tt.text || string(got.entities) != tt.entities {
			t.Errorf("%s: got %q %s %v\nwant %q %s", tt.name, got.text, got.entities, err, tt.text, tt.entities)
		}
	}
}
