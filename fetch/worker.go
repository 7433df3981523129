package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"
)

// Bounds of a worker, the process a body's text is extracted in.
const (
	// WorkerMemory is the most memory a worker may take: a PDF or page
	// that needs more fails its fetch with ErrTooLarge. The kernel
	// enforces it; the worker's garbage collector works harder from half
	// of it.
	WorkerMemory = 512 << 20
	// maxWorkers is how many workers run at once; more fetches wait
	// their turn, within their deadline, so that many fetches at once
	// cannot take more than maxWorkers*WorkerMemory.
	maxWorkers = 2
	// maxWorkerOutput is the most bytes of answer read from a worker: a
	// Page of MaxText bytes, every one escaped, and a long title.
	maxWorkerOutput = 8 << 20
	// workerWaitDelay is how long a killed worker's pipes are waited for.
	workerWaitDelay = time.Second
)

// workerRequest is what a worker reads on its standard input.
type workerRequest struct {
	Body        []byte `json:"body"`
	ContentType string `json:"content_type"`
	Name        string `json:"name"`
	URL         string `json:"url"`
}

// workerAnswer is what a worker writes on its standard output: the page,
// or the error's words and the sentinel it wraps.
type workerAnswer struct {
	Page  Page   `json:"page"`
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// sentinels name the package's errors between a worker and its parent.
var sentinels = []struct {
	name string
	err  error
}{
	{"bad_url", ErrBadURL}, {"refused", ErrRefusedAddress}, {"redirects", ErrTooManyRedirects},
	{"timeout", ErrTimeout}, {"too_large", ErrTooLarge}, {"unsupported", ErrUnsupportedType},
	{"http_status", ErrHTTPStatus}, {"unreachable", ErrUnreachable}, {"unreadable", ErrUnreadable},
	{"no_text", ErrNoText},
}

// sentinelError is an error that wraps the sentinel named kind and says
// msg.
type sentinelError struct {
	msg  string
	kind error
}

func (e *sentinelError) Error() string { return e.msg }
func (e *sentinelError) Unwrap() error { return e.kind }

// ServeWorker is the whole of a worker process: it caps the process's
// memory at WorkerMemory, reads one request from in, extracts its text as
// Extract does, and writes the answer to out. A cmd's hidden subcommand
// runs it, and Config.Worker starts that subcommand. A body that makes
// the extraction take too much memory kills the worker, not its parent.
func ServeWorker(in io.Reader, out io.Writer) error {
	if err := limitMemory(WorkerMemory * raceRoom); err != nil {
		return fmt.Errorf("limit the worker's memory: %w", err)
	}
	debug.SetMemoryLimit(WorkerMemory / 2)
	debug.SetMaxStack(64 << 20)
	var req workerRequest
	if err := json.NewDecoder(in).Decode(&req); err != nil { // what the parent read, bounded by its Config and by the cap above
		return fmt.Errorf("read the worker's request: %w", err)
	}
	var ans workerAnswer
	page, err := Extract(req.Body, req.ContentType, req.Name, req.URL)
	if err != nil {
		ans.Error, ans.Kind = err.Error(), "unreadable"
		for _, s := range sentinels {
			if errors.Is(err, s.err) {
				ans.Kind = s.name
				break
			}
		}
	} else {
		ans.Page = page
	}
	return json.NewEncoder(out).Encode(ans)
}

// Extract turns body, a file in hand such as an upload, into a Page as
// the package's Extract does — in a worker when the Config names one,
// within the Config's Timeout.
func (f *Fetcher) Extract(ctx context.Context, body []byte, contentType, name string) (Page, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, f.cfg.Timeout, ErrTimeout)
	defer cancel()
	return f.extract(ctx, body, contentType, name, "")
}

// extract turns body into a Page: in a worker when the Config names one,
// killed at ctx's end, else here.
func (f *Fetcher) extract(ctx context.Context, body []byte, contentType, name, pageURL string) (Page, error) {
	if f.cfg.Worker == nil {
		return Extract(body, contentType, name, pageURL)
	}
	select {
	case f.workers <- struct{}{}:
		defer func() { <-f.workers }()
	case <-ctx.Done():
		return Page{}, f.workerFailed(ctx, "waiting for a turn to read it", nil)
	}
	req, err := json.Marshal(workerRequest{Body: body, ContentType: contentType, Name: name, URL: pageURL})
	if err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	cmd := f.cfg.Worker(ctx)
	stdout, stderr := &capped{max: maxWorkerOutput}, &capped{max: 4 << 10}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(req), stdout, stderr
	cmd.WaitDelay = workerWaitDelay
	if err := cmd.Run(); err != nil {
		return Page{}, f.workerFailed(ctx, stderr.String(), err)
	}
	var ans workerAnswer
	if stdout.over {
		return Page{}, fmt.Errorf("%w: the reader answered more than %d MB", ErrTooLarge, maxWorkerOutput>>20)
	}
	if err := json.Unmarshal(stdout.Bytes(), &ans); err != nil {
		return Page{}, fmt.Errorf("%w: the reader's answer is broken: %v", ErrUnreadable, err)
	}
	if ans.Error == "" {
		return ans.Page, nil
	}
	kind := ErrUnreadable
	for _, s := range sentinels {
		if s.name == ans.Kind {
			kind = s.err
		}
	}
	return Page{}, &sentinelError{msg: ans.Error, kind: kind}
}

// workerFailed says why a worker ended without an answer: the deadline,
// too much memory, or something broken, in its own first words.
func (f *Fetcher) workerFailed(ctx context.Context, said string, err error) error {
	f.cfg.Log.WarnContext(ctx, "web page text not extracted", "err", err, "worker_said", firstLine(said))
	switch {
	case errors.Is(context.Cause(ctx), ErrTimeout):
		return fmt.Errorf("%w: reading its text did not finish within %v", ErrTimeout, f.cfg.Timeout)
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case outOfMemory(said):
		return fmt.Errorf("%w: reading its text takes more than the %d MB of memory allowed", ErrTooLarge, WorkerMemory>>20)
	}
	return fmt.Errorf("%w: the reader failed (%v): %s", ErrUnreadable, err, firstLine(said))
}

// outOfMemory reports whether a worker's last words say it ran out of
// memory: the runtime says so in several ways, by where it ran out (a
// thread's stack counts against the cap too).
func outOfMemory(said string) bool {
	for _, words := range []string{"out of memory", "cannot allocate memory", "stack exceeds", "failed to allocate", "pthread_create failed"} {
		if strings.Contains(said, words) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s, _ = clip(s, 200)
	return s
}

// capped keeps the first max bytes written to it and drops the rest, so
// that a worker writing more is never blocked on a full pipe.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		c.over = true
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
