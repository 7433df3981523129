package ollama_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server that sends a list of models larger than any real one (broken,
// or hostile) is not read into memory whole: the list fails.
func TestAHugeListOfModelsIsNotReadWhole(t *testing.T) {
	padding := bytes.Repeat([]byte(" "), 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if _, err := w.Write([]byte(`{"models":[{"name":"llama3.2:latest"}]`)); err != nil {
			return
		}
		for range 48 {
			if _, err := w.Write(padding); err != nil {
				return
			}
		}
		_, _ = w.Write([]byte(`}`))
	}))
	t.Cleanup(srv.Close)
	c := client(t, srv.URL, nil)
	names, err := c.Models(context.Background())
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("Models = %d names, err %v; want the list refused as too large", len(names), err)
	}
}
