package lang

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// Language is one language ryo's messages can be shown in.
type Language struct {
	Tag  string // BCP 47, as Telegram's language_code: "en", "ru"
	Name string // the language's name in itself: "English", "Русский"

	messages func() Messages // its translations, built the first time a printer needs them
	printer  func() Printer  // its printer, made once
}

// Messages are one language's translations, keyed by the English format
// each translates (gettext's msgid).
type Messages struct {
	Texts   map[string]string // a message without a count
	Plurals map[string]Plural // a message whose words follow a count
	// Dates are the names of months and days as Go writes them ("Jan",
	// "Mon"), in the language: a date is printed with Printer.Date.
	Dates map[string]string
}

// Plural is a message in the plural forms of its language (CLDR's: "1
// answer", "2 answers"; "1 ответ", "2 ответа", "5 ответов"). Each form is
// a format with the same verbs as the English; a form left empty is
// Other, then Many, then the English format itself. The count is the
// first argument of an integer type; a count shown otherwise (its digits
// grouped) is passed first all the same, and left out of the format by
// indexing the rest: Sprintf("%[2]s answers", n, grouped).
type Plural struct {
	One, Few, Many, Other string
}

// English is the language messages are written in, and the fallback.
const English = "en"

// Languages are the languages ryo speaks, English first. Adding one is a
// file of its own (ru.go) with its Messages, and one line in languages.
func Languages() []Language { return slices.Clone(languages) }

// languages are the languages ryo speaks. Each builds its translations
// the first time a printer of it is asked for, and never changes them:
// they are constants, kept in maps for lookup, and no printer writes to
// them.
var languages = []Language{
	speaks(English, "English", english),
	speaks("ru", "Русский", russian),
}

func speaks(tag, name string, messages func() Messages) Language {
	l := Language{Tag: tag, Name: name, messages: sync.OnceValue(messages)}
	l.printer = sync.OnceValue(func() Printer { return Printer{tag: tag, base: language.Make(tag), m: l.messages()} })
	return l
}

// Supported is the tag of the language of Languages that tag names — "ru"
// for "ru-RU" — and whether there is one.
func Supported(tag string) (string, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(strings.ReplaceAll(tag, "_", "-"))), "-")
	for _, l := range languages {
		if l.Tag == base {
			return l.Tag, true
		}
	}
	return "", false
}

// Printer prints messages in one language. The zero Printer prints
// English.
type Printer struct {
	tag  string
	base language.Tag // for the plural rules
	m    Messages
}

// For is the printer of the language tag names; English when ryo does not
// speak it.
func For(tag string) Printer {
	t, ok := Supported(tag)
	if !ok {
		t = English
	}
	for _, l := range languages {
		if l.Tag == t {
			return l.printer()
		}
	}
	panic("lang: English is not among the languages") // unreachable: Languages lists English
}

// Tag is the printer's language.
func (p Printer) Tag() string {
	if p.tag == "" {
		return English
	}
	return p.tag
}

// Sprintf formats the translation of format, an English message, with
// args. A message the language lacks is printed in English.
func (p Printer) Sprintf(format string, args ...any) string {
	if p.tag == "" {
		p = For(English)
	}
	return fmt.Sprintf(p.translate(format, args), args...)
}

// Date is t in layout (time's), with the English names of months and
// days it writes in the printer's language: "2 Jan 15:04" is "2 янв 15:04".
func (p Printer) Date(t time.Time, layout string) string {
	s := t.Format(layout)
	if p.tag == "" || len(p.m.Dates) == 0 {
		return s
	}
	return dateWord.ReplaceAllStringFunc(s, func(w string) string {
		if d, ok := p.m.Dates[w]; ok {
			return d
		}
		return w
	})
}

// dateWord is a word Go's time layouts may write: a month's or a day's
// name, whole or short.
var dateWord = regexp.MustCompile(`\b[A-Z][a-z]{2,8}\b`)

// Message is the translation of s, a whole message written in English
// where no chat is known — the Message of a ryo.Error, made deep in a
// model adapter — as it is; s when the language lacks it. Messages ryo
// writes itself go through Sprintf.
func (p Printer) Message(s string) string {
	if p.tag == "" {
		p = For(English)
	}
	if t, ok := p.m.Texts[s]; ok && !strings.Contains(s, "%") {
		return t
	}
	return s
}

// MessageAbout is Message of doing with subject put in for its %s, as it
// is: "🔎 searching the web for %s" about "kernel 6.12". With subject ""
// it is Message(doing).
func (p Printer) MessageAbout(doing, subject string) string {
	if subject == "" {
		return p.Message(doing)
	}
	if p.tag == "" {
		p = For(English)
	}
	line, ok := p.m.Texts[doing]
	if !ok {
		line = doing
	}
	return strings.Replace(line, "%s", subject, 1)
}

// translate is format in the printer's language, in the plural form its
// count asks for.
func (p Printer) translate(format string, args []any) string {
	if forms, ok := p.m.Plurals[format]; ok {
		if n, ok := count(args); ok {
			return forms.of(plural.Cardinal.MatchPlural(p.base, n, 0, 0, 0, 0), format)
		}
	}
	if t, ok := p.m.Texts[format]; ok {
		return t
	}
	return format
}

// of is the form the plural rules chose, else Other, else Many, else
// fallback.
func (pl Plural) of(f plural.Form, fallback string) string {
	var chosen string
	switch f {
	case plural.One:
		chosen = pl.One
	case plural.Few:
		chosen = pl.Few
	case plural.Many:
		chosen = pl.Many
	}
	for _, s := range []string{chosen, pl.Other, pl.Many} {
		if s != "" {
			return s
		}
	}
	return fallback
}

// count is the first integer among args, as the plural rules take it:
// its absolute value. A value of 19 digits or more keeps its last 18 and
// stays that long: the rules look at the last digits and at whether it is
// small, and an int holds it whatever its sign.
func count(args []any) (int, bool) {
	for _, a := range args {
		var n uint64
		switch v := a.(type) {
		case int:
			n = magnitude(int64(v))
		case int32:
			n = magnitude(int64(v))
		case int64:
			n = magnitude(v)
		case uint:
			n = uint64(v)
		case uint32:
			n = uint64(v)
		case uint64:
			n = v
		default:
			continue
		}
		const big = 1_000_000_000_000_000_000
		if n >= big {
			n = n%big + big
		}
		return int(n), true
	}
	return 0, false
}

// magnitude is |v|, math.MinInt64's too.
func magnitude(v int64) uint64 {
	if v < 0 {
		return uint64(-(v + 1)) + 1
	}
	return uint64(v)
}

// printerKey keys a Printer in a context.
type printerKey struct{}

// NewContext is ctx carrying p: for the words of a call that runs apart
// from its chat, such as a tool's explanation of an action it asks for.
func NewContext(ctx context.Context, p Printer) context.Context {
	return context.WithValue(ctx, printerKey{}, p)
}

// FromContext is the Printer ctx carries; English when none.
func FromContext(ctx context.Context) Printer {
	if p, ok := ctx.Value(printerKey{}).(Printer); ok {
		return p
	}
	return For(English)
}
