package knowledge_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/knowledge"
)

// embedder gives each text a vector of its length, and fails the call
// numbered failAt (from 1; 0: never).
type embedder struct {
	calls, failAt int
	short         bool
}

func (e *embedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	if e.calls == e.failAt {
		return nil, errors.New("model unloaded")
	}
	var out [][]float32
	for _, t := range texts {
		out = append(out, []float32{float32(len(t)), 1})
	}
	if e.short {
		out = out[1:]
	}
	return out, nil
}

func chunks(n int) []ryo.Chunk {
	out := make([]ryo.Chunk, n)
	for i := range out {
		out[i] = ryo.Chunk{Ord: i, Heading: "H", Text: fmt.Sprint(i)}
	}
	return out
}

func TestEmbedInBatches(t *testing.T) {
	e := &embedder{}
	cs := chunks(knowledge.EmbedBatch*2 + 1)
	if err := knowledge.Embed(context.Background(), e, cs); err != nil {
		t.Fatal(err)
	}
	if e.calls != 3 || cs[0].Embedding[0] != float32(len("H\n\n0")) || cs[len(cs)-1].Embedding == nil {
		t.Fatalf("%d calls, first %v; want 3 batches and every chunk embedded", e.calls, cs[0].Embedding)
	}
}

// A failure, or a wrong number of vectors, leaves every chunk without an
// embedding.
func TestEmbedFailureLeavesWordsAlone(t *testing.T) {
	for _, e := range []*embedder{{failAt: 2}, {short: true}} {
		cs := chunks(knowledge.EmbedBatch + 5)
		if err := knowledge.Embed(context.Background(), e, cs); err == nil {
			t.Fatal("Embed succeeded; want the failure")
		}
		for _, c := range cs {
			if c.Embedding != nil {
				t.Fatalf("chunk %d kept an embedding after a failure", c.Ord)
			}
		}
	}
}
