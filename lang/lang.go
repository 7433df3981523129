package lang

import (
	"fmt"
	"strings"
)

// Language is one language ryo's messages can be shown in.
type Language struct {
	Tag  string // BCP 47, as Telegram's language_code: "en", "ru"
	Name string // the language's name in itself: "English", "Русский"
}

// English is the language messages are written in, and the fallback.
const English = "en"

// Languages are the languages ryo speaks, English first.
func Languages() []Language {
	return []Language{{Tag: English, Name: "English"}}
}

// Supported is the tag of the language of Languages that tag names — "ru"
// for "ru-RU" — and whether there is one.
func Supported(tag string) (string, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
	for _, l := range Languages() {
		if l.Tag == base {
			return l.Tag, true
		}
	}
	return "", false
}

// Printer prints messages in one language.
type Printer struct {
	tag string
}

// For is the printer of the language tag names; English when ryo does not
// speak it.
func For(tag string) Printer {
	if t, ok := Supported(tag); ok {
		return Printer{tag: t}
	}
	return Printer{tag: English}
}

// Tag is the printer's language.
func (p Printer) Tag() string {
	if p.tag == "" {
		return English
	}
	return p.tag
}

// Sprintf formats the translation of format, an English message, with
// args.
func (p Printer) Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, args...)
}
