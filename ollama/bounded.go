package ollama

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxAnswer bounds an answer the server gives in one piece: the list of
// its models (some 400 bytes each), a model's details, embeddings. A
// server that sends more is broken or hostile, and is not read into
// memory. Chat answers stream, and are bounded by time instead.
const maxAnswer = 32 << 20

// bounded is a transport that cuts off one-piece answers at maxAnswer.
type bounded struct{ http.RoundTripper }

func (b bounded) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.RoundTripper.RoundTrip(r)
	if err != nil || strings.HasSuffix(r.URL.Path, "/api/chat") {
		return resp, err
	}
	resp.Body = &capped{ReadCloser: resp.Body, left: maxAnswer, path: r.URL.Path}
	return resp, nil
}

// capped fails a read past its limit.
type capped struct {
	io.ReadCloser
	left int64
	path string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more says whether the answer ends at the limit.
		if n, err := c.ReadCloser.Read(make([]byte, 1)); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("answer to %s larger than %d MiB", c.path, maxAnswer>>20)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}
