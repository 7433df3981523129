package stt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ryo-bot/ryo/render"
)

// MaxText is the most characters of a transcript kept: a ten-minute
// recording is some 1,500 words, about 9,000 characters.
const MaxText = 16000

// maxDoing is the most characters of the transcript the status line quotes.
const maxDoing = 60

// Doing is the status line of a recording: 🎙 “what's on my calendar…”,
// the transcript cut at a character boundary; before there is one,
// "🎙 transcribing the recording".
func Doing(t Transcript) string {
	text := oneLine(t.Text)
	if text == "" {
		return "🎙 transcribing the recording"
	}
	return "🎙 “" + cut(text, maxDoing) + "”"
}

// notSpeech are the annotations Whisper writes, in square brackets or
// parentheses, for sound that is not speech — above all [BLANK_AUDIO] and
// (silence) over a silent recording. They are taken out, and a transcript
// of nothing else is no speech. "[inaudible]" stays: it marks words that
// were said, and the model should know some were lost. Words Whisper is
// known to invent over silence ("Thank you for watching") stay too: a
// person may say them, and the status line shows the person what was
// heard, so they can tell.
var notSpeech = map[string]bool{
	"blank audio": true, "silence": true, "silent": true, "no speech": true, "no audio": true, "pause": true,
	"music": true, "music playing": true, "soft music": true, "upbeat music": true, "applause": true,
	"laughter": true, "laughing": true, "laughs": true, "noise": true, "background noise": true, "static": true,
	"sigh": true, "sighs": true, "cough": true, "coughs": true, "breathing": true, "wind": true, "beep": true,
}

// clean is a transcript fit to be read as a message: bytes that are not
// UTF-8, characters that hide or reorder text and non-speech annotations
// taken out, white space one space, at most MaxText characters. A
// transcript without a letter or a digit ("♪", "...") is empty.
func clean(s string) string {
	if len(s) > 8*MaxText { // more than MaxText characters of any script
		s = s[:8*MaxText]
	}
	s = oneLine(strings.Map(visible, dropAnnotations(strings.ToValidUTF8(s, ""))))
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return ""
	}
	return cut(s, MaxText)
}

// maxAnnotation is the most bytes between an annotation's brackets.
const maxAnnotation = 40

// dropAnnotations takes out bracketed annotations of sound that is not
// speech, such as [BLANK_AUDIO] or ( Silence ).
func dropAnnotations(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "[(")
		if i < 0 {
			return b.String() + s
		}
		closer := "]"
		if s[i] == '(' {
			closer = ")"
		}
		j := strings.Index(s[i+1:min(len(s), i+1+maxAnnotation+1)], closer)
		if j < 0 || !notSpeech[annotation(s[i+1:i+1+j])] {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i] + " ")
		s = s[i+1+j+1:]
	}
}

// annotation is an annotation's words in lower case, "_" and "-" as
// spaces, without a final full stop.
func annotation(s string) string {
	s = strings.NewReplacer("_", " ", "-", " ").Replace(strings.ToLower(s))
	return oneLine(strings.TrimRight(strings.TrimSpace(s), ".!"))
}

// visible is r, or -1 for a character that hides or reorders text: format
// characters (bidi overrides, zero-width spaces, tag characters), control
// characters other than white space, and U+FFFD. The joiners that build
// emoji and Persian or Indic words stay.
func visible(r rune) rune {
	switch {
	case r == '\u200c' || r == '\u200d':
		return r
	case r == utf8.RuneError || unicode.Is(unicode.Cf, r) || unicode.IsControl(r) && !unicode.IsSpace(r):
		return -1
	}
	return r
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut cuts s to at most n characters, "…" included, at a character
// boundary (never inside an emoji or before a combining mark), after a
// word where one ends in the last fifth, and marks the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	end := n - 1
	for end > 0 && !render.Cuttable(r, end) {
		end--
	}
	for i := end; i > end*4/5; i-- {
		if r[i] == ' ' {
			end = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:end]), unicode.IsSpace) + "…"
}
