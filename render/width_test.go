package render

import "testing"

func TestWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"Привет", 6},
		{"寿司", 4},
		{"ｆｕｌｌ", 8},
		{"한국어", 6},
		{"😀", 2},
		{"👍🏽", 2},
		{"👨‍👩‍👧", 2},
		{"🇯🇵🇺🇦", 4},
		{"❤️", 2},
		{"1️⃣", 2},
		{"é", 1},
		{"e\u0301", 1},
		{"a\u200bb", 2},
	}
	for _, tt := range tests {
		if got := width(tt.in); got != tt.want {
			t.Errorf("width(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}
