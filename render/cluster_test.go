package render

import "testing"

// A cut never falls inside a visible character: a flag, a family joined by
// zero width joiners, a skin tone, an accent, a variation selector.
func TestCuttable(t *testing.T) {
	for _, tt := range []struct {
		text string
		cuts []int // every place a cut may fall, 0 and the end included
	}{
		{"ab", []int{0, 1, 2}},
		{"🇯🇵🇫🇷", []int{0, 2, 4}},
		{"👨\u200d👩\u200d👧x", []int{0, 5, 6}},
		{"👍🏽!", []int{0, 2, 3}},
		{"e\u0301a", []int{0, 2, 3}},
		{"❤\ufe0f.", []int{0, 2, 3}},
	} {
		runes := []rune(tt.text)
		var got []int
		for i := 0; i <= len(runes); i++ {
			if Cuttable(runes, i) {
				got = append(got, i)
			}
		}
		if len(got) != len(tt.cuts) {
			t.Errorf("%q: cuts at %v; want %v", tt.text, got, tt.cuts)
			continue
		}
		for i := range got {
			if got[i] != tt.cuts[i] {
				t.Errorf("%q: cuts at %v; want %v", tt.text, got, tt.cuts)
				break
			}
		}
	}
}
