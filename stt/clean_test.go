package stt

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{" What's on my calendar? ", "What's on my calendar?"},
		{"line one\nline two\t\tand three", "line one line two and three"},
		{"[BLANK_AUDIO]", ""},
		{"[BLANK_AUDIO] Hello there. [BLANK_AUDIO]", "Hello there."},
		{"( Silence )", ""},
		{"(silence.)", ""},
		{"[Music] [MUSIC PLAYING] (upbeat music) [ Applause ]", ""},
		{"♪ ♪", ""},
		{"...", ""},
		{"Call me at [inaudible] tomorrow", "Call me at [inaudible] tomorrow"},                 // words were lost: the model should know
		{"The result (see below) is [1] (music)", "The result (see below) is [1]"},             // only annotations of sound go
		{"Thank you for watching.", "Thank you for watching."},                                 // a person may say it; the status line shows it
		{"abc\u202egnp.exe and\u200b hidden\U000E0041 text\x07", "abcgnp.exe and hidden text"}, // bidi, zero-width, tag and control characters
		{"bad \xff\xfe bytes", "bad bytes"},                                                    // not UTF-8
		{"👨\u200d👩\u200d👧 family, می\u200cخواهم", "👨\u200d👩\u200d👧 family, می\u200cخواهم"},     // the joiners that build emoji and words stay
		{"an unclosed [bracket and (paren", "an unclosed [bracket and (paren"},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanCutsLongTranscripts(t *testing.T) {
	got := clean(strings.Repeat("word ", MaxText))
	if n := utf8.RuneCountInString(got); n > MaxText || n < MaxText*4/5 || !strings.HasSuffix(got, "word…") {
		t.Errorf("a long transcript is cut to %d characters, ending %q", n, got[len(got)-12:])
	}
}

func TestDoing(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "🎙 transcribing the recording"},
		{"What's on my calendar?", "🎙 “What's on my calendar?”"},
		{"what's on my calendar for the rest of the week and what about next Monday morning then",
			"🎙 “what's on my calendar for the rest of the week and what…”"},
		{strings.Repeat("x", 58) + "👍🏽 and more", "🎙 “" + strings.Repeat("x", 58) + "…”"}, // never between an emoji and its skin tone
		{strings.Repeat("y", 58) + "🇫🇷 and more", "🎙 “" + strings.Repeat("y", 58) + "…”"}, // nor inside a flag
	} {
		if got := Doing(Transcript{Text: tc.text}); got != tc.want {
			t.Errorf("Doing(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"[BLANK_AUDIO] hi", "a\u202eb", "👨\u200d👩\u200d👧", "(silence", "\xff", strings.Repeat("é", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := clean(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxText {
			t.Fatalf("clean(%q) = %q", s, got)
		}
		for _, r := range got {
			if r != '\u200c' && r != '\u200d' && (unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || r == '\n' || r == utf8.RuneError) {
				t.Fatalf("clean(%q) keeps %U", s, r)
			}
		}
		if d := Doing(Transcript{Text: got}); utf8.RuneCountInString(d) > maxDoing+4 || !utf8.ValidString(d) {
			t.Fatalf("Doing(%q) = %q", got, d)
		}
	})
}

func TestCleanIsLinear(t *testing.T) {
	// a server's answer of 4 MB of opened brackets costs no more than its bytes
	got := clean(strings.Repeat("([", 2<<20))
	if got != "" {
		t.Errorf("clean = %q…", got[:20])
	}
}
