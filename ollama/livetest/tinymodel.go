package livetest

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand"
)

// TinyModel describes the model WriteTinyModel writes. The zero value is
// not useful; start from DefaultTinyModel.
type TinyModel struct {
	Reply  string // what the model answers; no byte may be followed by two different bytes
	Embd   int    // hidden size
	Layers int
	Heads  int
	FF     int // feed-forward size
	Ctx    int // context length
	Seed   int64
	// Favour lists bytes raised above everything but the reply: "n" makes
	// the model choose null wherever a schema allows it (a command-less
	// envelope), since the grammar then has to spell out the rest of "null".
	Favour string
}

// DefaultTinyModel is a 2-layer Llama with a hidden size of 64, about 470 KB.
func DefaultTinyModel() TinyModel {
	return TinyModel{Reply: "ok", Embd: 64, Layers: 2, Heads: 4, FF: 128, Ctx: 2048, Seed: 42}
}

// WriteTinyModel writes m as a GGUF v3 file: a real, randomly initialised
// Llama transformer over a 258-token byte vocabulary (256 bytes in GPT-2's
// byte-to-unicode form, <s>, </s>), whose output head is set by hand so that
// at temperature 0 its answers are short, deterministic and complete.
//
// Plain random weights are not enough: with a JSON schema as format, the
// grammar keeps every token inside the schema but nothing makes a random
// model finish, and answers get cut off at the token limit. So two things are
// set by hand. Dimension 0 of every token embedding is 1, which after the
// final norm acts as a constant input, making output column 0 a per-token
// bias that favours closing JSON tokens and end-of-sequence over letters and
// whitespace. A few more dimensions are one-hot features of the reply's
// bytes, chained so that after a newline (the end of the prompt) or an
// opening quote the most likely next bytes spell the reply, then
// end-of-sequence — or, inside JSON where that is not allowed, a closing
// quote. Free text comes out as the reply; every JSON string as the reply.
func WriteTinyModel(w io.Writer, m TinyModel) error {
	vocab := byteVocab()
	emb, out, err := m.weights(len(vocab.tokens))
	if err != nil {
		return err
	}
	g := &ggufWriter{w: bufio.NewWriter(w)}
	g.file(m.metadata(vocab), m.tensors(emb, out))
	if g.err != nil {
		return fmt.Errorf("write tiny model: %w", g.err)
	}
	return g.w.Flush()
}

type vocabulary struct {
	tokens   []string
	types    []int32
	bos, eos int
}

// byteVocab is one token per byte, in GPT-2's byte-to-unicode spelling,
// then <s> and </s> as control tokens.
func byteVocab() vocabulary {
	var v vocabulary
	for _, r := range gpt2Bytes() {
		v.tokens = append(v.tokens, string(r))
		v.types = append(v.types, 1) // normal
	}
	v.bos, v.eos = len(v.tokens), len(v.tokens)+1
	v.tokens = append(v.tokens, "<s>", "</s>")
	v.types = append(v.types, 3, 3) // control
	return v
}

// gpt2Bytes is GPT-2's bytes_to_unicode table: printable bytes stand for
// themselves, the others are moved above U+0100.
func gpt2Bytes() [256]rune {
	var table [256]rune
	next := 0
	for b := range 256 {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			table[b] = rune(b)
		} else {
			table[b] = rune(256 + next)
			next++
		}
	}
	return table
}

// weights returns the token embedding and output matrices, both
// [vocab][embd] row-major, with the hand-set parts described above.
func (m TinyModel) weights(nVocab int) (emb, out []float32, err error) {
	rng := rand.New(rand.NewSource(m.Seed))
	emb, out = randn(rng, m.Embd*nVocab), randn(rng, m.Embd*nVocab)
	eos := nVocab - 1
	bias := biases(rng, nVocab)
	for _, c := range []byte(m.Favour) {
		bias[c] = 3
	}
	for t, bias := range bias {
		emb[t*m.Embd] = 1
		out[t*m.Embd] = float32(bias / 8) // the constant input is about 8 after the norm
	}
	c := &chain{m: m, emb: emb, out: out, feature: map[byte]int{}, next: map[byte]int{}}
	steps := append([]byte{'\n'}, m.Reply...)
	for i := 0; i+1 < len(steps); i++ {
		c.link(steps[i], int(steps[i+1]), 10)
	}
	c.link('"', int(m.Reply[0]), 10)
	last := steps[len(steps)-1]
	c.link(last, eos, 10)
	c.link(last, int('"'), 8) // second choice, where end-of-sequence is not allowed
	return emb, out, c.err
}

// biases ranks tokens for the bias column: closing JSON first, then
// end-of-sequence, structure, letters, digits, other punctuation; whitespace
// and control bytes last.
func biases(rng *rand.Rand, nVocab int) []float64 {
	b := make([]float64, nVocab)
	for t := range 256 {
		c := byte(t)
		switch {
		case c == '"':
			b[t] = 2.5
		case c == '}':
			b[t] = 2.2
		case c == ']':
			b[t] = 2.1
		case c == ',' || c == ':' || c == '{' || c == '[':
			b[t] = 1.5
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			b[t] = -6
		case c >= 'a' && c <= 'z':
			b[t] = 0.5 + rng.Float64()*1.5
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b[t] = rng.Float64()
		case c < 0x20 || c >= 0x7f:
			b[t] = -8
		default:
			b[t] = -1
		}
	}
	b[nVocab-2] = -8 // <s>
	b[nVocab-1] = 2  // </s>
	return b
}

// chain wires "after byte c, prefer token next" into the weights.
type chain struct {
	m        TinyModel
	emb, out []float32
	feature  map[byte]int // byte -> its one-hot dimension
	next     map[byte]int // byte -> its chosen successor
	err      error
}

func (c *chain) link(from byte, next int, strength float64) {
	d, ok := c.feature[from]
	if !ok {
		d = len(c.feature) + 1
		if d >= c.m.Embd {
			c.err = fmt.Errorf("reply %q is too long for a hidden size of %d", c.m.Reply, c.m.Embd)
			return
		}
		c.feature[from] = d
		c.emb[int(from)*c.m.Embd+d] = 1
	} else if prev, ok := c.next[from]; ok && prev != next && strength >= 10 {
		c.err = fmt.Errorf("reply %q: byte %q would need two different successors", c.m.Reply, from)
		return
	}
	if strength >= 10 {
		c.next[from] = next
	}
	// A token with one feature has about sqrt(embd/2) in it after the norm.
	c.out[next*c.m.Embd+d] += float32(strength / math.Sqrt(float64(c.m.Embd)/2))
}

func randn(rng *rand.Rand, n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(rng.NormFloat64() * 0.02)
	}
	return d
}

func ones(n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = 1
	}
	return d
}

type tensor struct {
	name string
	dims []uint64 // innermost first, as ggml orders them
	data []float32
}

func (m TinyModel) tensors(emb, out []float32) []tensor {
	rng := rand.New(rand.NewSource(m.Seed + 1))
	e, f, v := uint64(m.Embd), uint64(m.FF), uint64(len(emb)/m.Embd)
	ts := []tensor{{"token_embd.weight", []uint64{e, v}, emb}}
	for l := range m.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			tensor{p + "attn_norm.weight", []uint64{e}, ones(m.Embd)},
			tensor{p + "attn_q.weight", []uint64{e, e}, randn(rng, m.Embd*m.Embd)},
			tensor{p + "attn_k.weight", []uint64{e, e}, randn(rng, m.Embd*m.Embd)},
			tensor{p + "attn_v.weight", []uint64{e, e}, randn(rng, m.Embd*m.Embd)},
			tensor{p + "attn_output.weight", []uint64{e, e}, randn(rng, m.Embd*m.Embd)},
			tensor{p + "ffn_norm.weight", []uint64{e}, ones(m.Embd)},
			tensor{p + "ffn_gate.weight", []uint64{e, f}, randn(rng, m.Embd*m.FF)},
			tensor{p + "ffn_up.weight", []uint64{e, f}, randn(rng, m.Embd*m.FF)},
			tensor{p + "ffn_down.weight", []uint64{f, e}, randn(rng, m.FF*m.Embd)},
		)
	}
	return append(ts,
		tensor{"output_norm.weight", []uint64{e}, ones(m.Embd)},
		tensor{"output.weight", []uint64{e, v}, out},
	)
}

type kv struct {
	key string
	val any // uint32, float32, bool, string, []string or []int32
}

func (m TinyModel) metadata(v vocabulary) []kv {
	return []kv{
		{"general.architecture", "llama"},
		{"general.name", "ryo-tiny-llama"},
		{"general.file_type", uint32(0)}, // all F32
		{"general.alignment", uint32(ggufAlign)},
		{"llama.context_length", uint32(m.Ctx)},
		{"llama.embedding_length", uint32(m.Embd)},
		{"llama.block_count", uint32(m.Layers)},
		{"llama.feed_forward_length", uint32(m.FF)},
		{"llama.attention.head_count", uint32(m.Heads)},
		{"llama.attention.head_count_kv", uint32(m.Heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(m.Embd / m.Heads)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(len(v.tokens))},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "default"},
		{"tokenizer.ggml.tokens", v.tokens},
		{"tokenizer.ggml.token_type", v.types},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(v.bos)},
		{"tokenizer.ggml.eos_token_id", uint32(v.eos)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}
