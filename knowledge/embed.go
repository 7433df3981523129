package knowledge

import (
	"context"
	"fmt"

	"github.com/ryo-bot/ryo"
)

// Embedder turns texts into vectors; *ollama.Client is one.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedBatch is how many chunks go to the embedding model at once.
const EmbedBatch = 32

// Embed gives chunks their embeddings — of each one's headings and text
// together — asking e for EmbedBatch at a time. On an error none of the
// chunks keeps an embedding: the document is then found by its words
// alone, and nothing else is lost.
func Embed(ctx context.Context, e Embedder, chunks []ryo.Chunk) error {
	vecs := make([][]float32, 0, len(chunks))
	for start := 0; start < len(chunks); start += EmbedBatch {
		batch := chunks[start:min(start+EmbedBatch, len(chunks))]
		texts := make([]string, len(batch))
		for i, c := range batch {
			texts[i] = c.Heading + "\n\n" + c.Text
		}
		got, err := e.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed chunks %d to %d: %w", start, start+len(batch)-1, err)
		}
		if len(got) != len(batch) {
			return fmt.Errorf("embed chunks %d to %d: %d vectors for %d texts", start, start+len(batch)-1, len(got), len(batch))
		}
		vecs = append(vecs, got...)
	}
	for i := range chunks {
		chunks[i].Embedding = vecs[i]
	}
	return nil
}
