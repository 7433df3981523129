package livetest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvVar names the Ollama server binary.
const EnvVar = "RYO_OLLAMA_BIN"

// Server is a running `ollama serve`.
type Server struct {
	URL string

	cmd    *exec.Cmd
	client *http.Client
	exited chan struct{}
	mu     sync.Mutex
	log    bytes.Buffer
}

// Start runs a server for the test; it is stopped when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := os.Getenv(EnvVar)
	if bin == "" {
		if os.Getenv("CI") != "" {
			tb.Fatalf("%s is not set; CI must run the real-Ollama tests (make test sets it)", EnvVar)
		}
		tb.Skipf("%s is not set; skipping a real-Ollama test (make test builds the server and sets it)", EnvVar)
	}
	dir := tb.TempDir()
	addr := freeAddr(tb)
	s := &Server{URL: "http://" + addr, client: &http.Client{Timeout: time.Minute}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "serve")
	s.cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "OLLAMA_HOST=" + addr,
		"OLLAMA_MODELS=" + filepath.Join(dir, "models"), "OLLAMA_KEEP_ALIVE=1h", "OLLAMA_NUM_PARALLEL=1",
	}
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so stopping also reaps the runners
	listening := s.capture(tb)
	if err := s.cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", bin, err)
	}
	go func() { s.cmd.Wait(); close(s.exited) }()
	tb.Cleanup(s.Stop)
	select {
	case <-listening:
	case <-s.exited:
		tb.Fatalf("ollama serve exited at start:\n%s", s.Log())
	case <-time.After(30 * time.Second):
		tb.Fatalf("ollama serve did not listen within 30s:\n%s", s.Log())
	}
	return s
}

func freeAddr(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// capture keeps the server's log and reports when it listens.
func (s *Server) capture(tb testing.TB) <-chan struct{} {
	r, w := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = w, w
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		once := sync.Once{}
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if strings.Contains(sc.Text(), "Listening on") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	go func() { <-s.exited; w.Close() }()
	return listening
}

// Log returns what the server printed.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Kill kills the server and its runners at once, as a crash would.
func (s *Server) Kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// Stop asks the server to stop, and kills it after ten seconds.
func (s *Server) Stop() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.Kill()
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // runners that outlived the server
}

// modelTemplate renders a conversation as plain role-tagged lines and ends
// with a newline, which the tiny model answers.
const modelTemplate = "{{- range .Messages }}<|{{ .Role }}|>\n{{ .Content }}\n{{ end }}<|assistant|>\n"

// CreateTinyModel creates model name on the server from m.
func (s *Server) CreateTinyModel(tb testing.TB, name string, m TinyModel) {
	tb.Helper()
	var gguf bytes.Buffer
	if err := WriteTinyModel(&gguf, m); err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(gguf.Bytes())
	digest := "sha256:" + hex.EncodeToString(sum[:])
	s.post(tb, "/api/blobs/"+digest, gguf.Bytes())
	body, _ := json.Marshal(map[string]any{
		"model": name, "files": map[string]string{"tiny.gguf": digest}, "template": modelTemplate, "stream": false,
		// One thread: two would fight the server and the tests for the two cores.
		"parameters": map[string]any{"num_thread": 1, "temperature": 0, "num_ctx": 2048},
	})
	s.post(tb, "/api/create", body)
}

func (s *Server) post(tb testing.TB, path string, body []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatalf("POST %s: %v\n%s", path, err, s.Log())
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("POST %s: %s: %s", path, resp.Status, out)
	}
}

// Running returns the models the server has loaded, with when each expires.
func (s *Server) Running(tb testing.TB) map[string]time.Time {
	tb.Helper()
	resp, err := s.client.Get(s.URL + "/api/ps")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name      string    `json:"name"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		tb.Fatal(fmt.Errorf("/api/ps: %w", err))
	}
	running := map[string]time.Time{}
	for _, m := range ps.Models {
		running[m.Name] = m.ExpiresAt
	}
	return running
}
