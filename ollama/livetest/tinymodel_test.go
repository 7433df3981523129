package livetest

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func TestTinyModelFile(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteTinyModel(&a, DefaultTinyModel()); err != nil {
		t.Fatal(err)
	}
	if err := WriteTinyModel(&b, DefaultTinyModel()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same model written twice differs")
	}
	data := a.Bytes()
	if string(data[:4]) != "GGUF" || binary.LittleEndian.Uint32(data[4:]) != 3 {
		t.Fatalf("header = %q v%d; want GGUF v3", data[:4], binary.LittleEndian.Uint32(data[4:]))
	}
	if tensors := binary.LittleEndian.Uint64(data[8:]); tensors != 2+2*9+1 {
		t.Fatalf("%d tensors; want 21 for 2 layers", tensors)
	}
	if n := len(data); n > 1<<20 || n%ggufAlign != 0 {
		t.Fatalf("model is %d bytes; want under 1 MB and aligned", n)
	}
}

func TestTinyModelRefusesAmbiguousReplies(t *testing.T) {
	m := DefaultTinyModel()
	m.Reply = "hello" // 'l' is followed by 'l' and by 'o'
	err := WriteTinyModel(&bytes.Buffer{}, m)
	if err == nil || !strings.Contains(err.Error(), "two different successors") {
		t.Fatalf("WriteTinyModel(hello) = %v; want a refusal", err)
	}
}

func TestGPT2ByteTable(t *testing.T) {
	table := gpt2Bytes()
	seen := map[rune]bool{}
	for _, r := range table {
		if seen[r] {
			t.Fatalf("rune %q stands for two bytes", r)
		}
		seen[r] = true
	}
	if table['A'] != 'A' || table[' '] != 'Ġ' || table['\n'] != 'Ċ' {
		t.Fatalf("A, space, newline = %q %q %q; want A Ġ Ċ", table['A'], table[' '], table['\n'])
	}
}
