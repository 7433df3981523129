package lang

import (
	"math"
	"testing"
	"time"
)

func TestForNamesALanguageOrEnglish(t *testing.T) {
	for _, c := range []struct{ tag, want string }{
		{"ru", "ru"}, {"ru-RU", "ru"}, {"RU_ru", "ru"}, {" ru ", "ru"},
		{"en", English}, {"en-GB", English}, {"xx", English}, {"", English}, {"uk", English},
	} {
		if got := For(c.tag).Tag(); got != c.want {
			t.Errorf("For(%q).Tag() = %q; want %q", c.tag, got, c.want)
		}
	}
	if got := (Printer{}).Sprintf("%d passages", 1); got != "1 passage" {
		t.Errorf("the zero Printer prints %q; want English", got)
	}
}

func TestPluralsFollowTheCount(t *testing.T) {
	ru, en := For("ru"), For(English)
	for _, c := range []struct {
		n      int64
		ru, en string
	}{
		{0, "0 ответов", "0 answers"}, {1, "1 ответ", "1 answer"}, {2, "2 ответа", "2 answers"},
		{4, "4 ответа", "4 answers"}, {5, "5 ответов", "5 answers"}, {11, "11 ответов", "11 answers"},
		{12, "12 ответов", "12 answers"}, {21, "21 ответ", "21 answers"}, {22, "22 ответа", "22 answers"},
		{25, "25 ответов", "25 answers"}, {101, "101 ответ", "101 answers"}, {111, "111 ответов", "111 answers"},
		{1_000_001, "1000001 ответ", "1000001 answers"}, {-3, "-3 ответа", "-3 answers"},
	} {
		grouped := func(n int64) string { return For(English).Sprintf("%d", n) }
		if got := ru.Sprintf("%[2]s answers", c.n, grouped(c.n)); got != c.ru {
			t.Errorf("ru %d: %q; want %q", c.n, got, c.ru)
		}
		if got := en.Sprintf("%[2]s answers", c.n, grouped(c.n)); got != c.en {
			t.Errorf("en %d: %q; want %q", c.n, got, c.en)
		}
	}
	if got := ru.Sprintf("%d bytes", 7_123_456_789); got != "7123456789 байт" {
		t.Errorf("a count past 32 bits: %q", got)
	}
}

func TestAMessageWithoutTranslationIsEnglish(t *testing.T) {
	if got := For("ru").Sprintf("no such message %d", -1001234567890); got != "no such message -1001234567890" {
		t.Errorf("got %q", got)
	}
	if got := For("ru").Message("The model server stopped in the middle of the answer. Please try again."); got == "" || got[0] == 'T' {
		t.Errorf("an error's message is not translated: %q", got)
	}
	if got := For("ru").Message("100% sure"); got != "100% sure" {
		t.Errorf("an unknown message changed: %q", got)
	}
}

func TestDatesNameMonthsInTheLanguage(t *testing.T) {
	at := time.Date(2026, 3, 9, 14, 5, 0, 0, time.UTC)
	if got := For("ru").Date(at, "Mon 2 Jan 15:04 MST"); got != "пн 9 мар 14:05 UTC" {
		t.Errorf("ru: %q", got)
	}
	if got := For(English).Date(at, "Mon 2 Jan 15:04 MST"); got != "Mon 9 Mar 14:05 UTC" {
		t.Errorf("en: %q", got)
	}
}

func TestEveryLanguageNamesItself(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Languages() {
		if l.Tag == "" || l.Name == "" || seen[l.Tag] || len(l.Tag) != 2 {
			t.Errorf("language %+v: a two-letter tag of its own and a name, please", l)
		}
		seen[l.Tag] = true
	}
	if Languages()[0].Tag != English {
		t.Errorf("English comes first")
	}
}

// A count at the ends of what 64 bits hold — a sum gone wrong, a forged
// number — is printed in a plural form; it never stops the printer.
func TestAPluralOfAnyCountPrints(t *testing.T) {
	ru := For("ru")
	for _, c := range []struct {
		n    any
		want string
	}{
		{int64(math.MinInt64), "-9223372036854775808 сообщений"},
		{int64(math.MaxInt64), "9223372036854775807 сообщений"},
		{int64(-7_123_456_781), "-7123456781 сообщение"},
		{uint64(math.MaxUint64), "18446744073709551615 сообщений"},
		{int32(math.MinInt32), "-2147483648 сообщений"},
	} {
		if got := ru.Sprintf("%d messages", c.n); got != c.want {
			t.Errorf("%v: %q; want %q", c.n, got, c.want)
		}
	}
}

// Choosing a model untrained for tools answers the press with this
// warning, and Telegram shows at most 200 characters of it: with an
// Ollama name as long as "hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:Q4_K_M"
// the Russian must still fit where the English does.
func TestTheToolWarningFitsAPressAnswerInRussian(t *testing.T) {
	const warning = "⚠️ %s is not trained for tools. I ask every model for a JSON answer, not native tool calls, so tools still work — but it may pick them less reliably."
	name := "hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:Q4_K_M"
	en, ru := For(English).Sprintf(warning, name), For("ru").Sprintf(warning, name)
	if n, m := len([]rune(en)), len([]rune(ru)); n > 200 || m > 200 {
		t.Errorf("English %d characters, Russian %d: %q", n, m, ru)
	}
}

// A status line is translated whole and its subject put in as it is: a
// subject holding verbs or a translated word stays itself.
func TestMessageAbout(t *testing.T) {
	ru := For("ru")
	for _, c := range []struct{ doing, subject, want string }{
		{"🔎 searching the web for %s", "kernel 6.12", "🔎 ищу в интернете: kernel 6.12"},
		{"🔎 searching the web for %s", "100%s %d %!", "🔎 ищу в интернете: 100%s %d %!"},
		{"🔎 searching the web", "", "🔎 ищу в интернете"},
		{"🧪 a line no language has: %s", "x", "🧪 a line no language has: x"},
	} {
		if got := ru.MessageAbout(c.doing, c.subject); got != c.want {
			t.Errorf("MessageAbout(%q, %q) = %q; want %q", c.doing, c.subject, got, c.want)
		}
	}
	if got := (Printer{}).MessageAbout("📄 reading %s", "news.example"); got != "📄 reading news.example" {
		t.Errorf("the zero Printer says %q", got)
	}
}

// BenchmarkFor: a printer of Russian, as every turn gets one, and a
// message printed with it.
func BenchmarkFor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		For("ru-RU").Sprintf("%d answers", 5)
	}
}
