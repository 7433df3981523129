package ryo_test

import (
	"testing"

	"github.com/ryo-bot/ryo"
)

func TestSameModel(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"llama3.2", "llama3.2:latest", true},
		{"Qwen3:8B", "qwen3:8b", true},
		{"qwen3", "qwen3:8b", false},
		{"hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF", "hf.co/bartowski/llama-3.2-3b-instruct-gguf:latest", true},
		{"localhost:5000/llama", "localhost:5000/llama:latest", true},
		{"", "", true},
		{"", "llama3.2", false},
	}
	for _, tc := range cases {
		if got := ryo.SameModel(tc.a, tc.b); got != tc.want {
			t.Errorf("SameModel(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
