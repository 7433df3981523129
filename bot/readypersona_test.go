package bot

import (
	"testing"

	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/lang"
)

// A ready persona is chosen by its index, written as stopData writes
// numbers: anything else chooses none. Each is a persona /settings would
// keep as it is, in every language.
func TestReadyPersonas(t *testing.T) {
	p := lang.For("en")
	for _, value := range []string{"", "-1", "01", "+1", "4", "9999999999999999999", "١", "0x1", " 1"} {
		if got := readyPersonaText(p, value); got != "" {
			t.Errorf("readyPersonaText(%q) = %q; want none", value, got)
		}
	}
	if got := readyPersonaText(p, "1"); got != readyPersonas(p)[1].text {
		t.Errorf("readyPersonaText(1) = %q", got)
	}
	for _, l := range lang.Languages() {
		for _, r := range readyPersonas(lang.For(l.Tag)) {
			if agent.CleanPersona(r.text) != r.text || agent.PersonaLength(r.text) > agent.MaxPersona || len(r.name) == 0 {
				t.Errorf("%s: the ready persona %q (%q) is not kept as written", l.Tag, r.name, r.text)
			}
		}
	}
}

// A ready persona chosen in one language is marked chosen for a viewer
// in any other: a group's admins need not speak one language.
func TestReadyPersonaMarkedInEveryLanguage(t *testing.T) {
	for _, chooser := range lang.Languages() {
		for i, r := range readyPersonas(lang.For(chooser.Tag)) {
			for _, viewer := range lang.Languages() {
				for j := range readyPersonas(lang.For(viewer.Tag)) {
					if got := isReadyPersona(lang.For(viewer.Tag), j, r.text); got != (i == j) {
						t.Errorf("ready persona %d chosen in %s, seen in %s: button %d marked %v", i, chooser.Tag, viewer.Tag, j, got)
					}
				}
			}
		}
	}
}
