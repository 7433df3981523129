package fetch

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// workerEnv, set in a test binary's environment, makes it a worker.
const workerEnv = "RYO_FETCH_TEST_WORKER"

// TestMain lets the test binary serve as the fetcher's worker process, as
// ryo's hidden subcommand does.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := ServeWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testWorker starts this test binary as a worker.
func testWorker(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = []string{workerEnv + "=1"}
	return cmd
}

// buildPDF writes objs, numbered from 1, into a PDF with a correct
// cross-reference table; object 1 is the catalog.
func buildPDF(objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.Bytes()
}

// pdfRepeating is a one-page PDF whose page draws one compressed content
// stream, content, times times over: the file is small and checks out,
// but the reader unpacks and reads the stream again for each time.
func pdfRepeating(content string, times int) []byte {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	w.Write([]byte(content))
	w.Close()
	return buildPDF("<</Type /Catalog /Pages 2 0 R>>",
		"<</Type /Pages /Kids [3 0 R] /Count 1>>",
		"<</Type /Page /Parent 2 0 R /Resources <<>> /Contents ["+strings.Repeat("4 0 R ", times)+"]>>",
		fmt.Sprintf("<</Filter /FlateDecode /Length %d>>\nstream\n%s\nendstream", z.Len(), z.String()))
}

// pdfServer serves body as a PDF at http://papers.example/x.pdf.
func pdfServer(t *testing.T, body []byte) *testNet {
	n := newTestNet()
	n.resolve("papers.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(body)
	}))
	return n
}

// A PDF read in a worker reads as it does here.
func TestWorkerReadsAPDF(t *testing.T) {
	pdf, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	n := pdfServer(t, pdf)
	p, err := n.fetcher(Config{Worker: testWorker}, nil).Fetch(fetchCtx(t), "http://papers.example/x.pdf")
	if err != nil || p.Title != "Harbour report" || !strings.Contains(p.Text, "Tickets cost twelve euros") || p.URL != "http://papers.example/x.pdf" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	_, err = pdfServer(t, []byte("%PDF-1.4\nnot really")).fetcher(Config{Worker: testWorker}, nil).Fetch(fetchCtx(t), "http://papers.example/x.pdf")
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "PDF") {
		t.Fatalf("a broken PDF: err = %v", err)
	}
}

// A 100 KB PDF whose page draws a 4 MB string 3,000 times over — 12 GB of
// text — kills its worker at the memory bound; the fetch fails saying so,
// and this process holds none of it. Built with the race detector, the
// worker reads so slowly that the deadline may end it first.
func TestWorkerDiesOfAMemoryBomb(t *testing.T) {
	bomb := pdfRepeating("BT ("+strings.Repeat("a", 4<<20)+") Tj ET ", 3000)
	var logs bytes.Buffer
	_, err := pdfServer(t, bomb).fetcher(Config{Worker: testWorker}, &logs).Fetch(fetchCtx(t), "http://papers.example/x.pdf")
	if raceBuild && errors.Is(err, ErrTimeout) {
		return
	}
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("err = %v (from %d bytes)", err, len(bomb))
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 200<<20 {
		t.Fatalf("this process holds %d MB", m.HeapAlloc>>20)
	}
	if !strings.Contains(logs.String(), "web page text not extracted") || !strings.Contains(logs.String(), "memory") {
		t.Fatalf("the log says %q", logs.String())
	}
}

// A PDF whose page draws one 16 MB stream 2,000 times, which would keep
// the reader busy for hours, ends its fetch at the fetch's deadline, its
// worker killed.
func TestWorkerIsKilledAtTheDeadline(t *testing.T) {
	endless := pdfRepeating(strings.Repeat("q Q ", 1<<22), 2000)
	start := time.Now()
	_, err := pdfServer(t, endless).fetcher(Config{Worker: testWorker, Timeout: time.Second}, nil).Fetch(fetchCtx(t), "http://papers.example/x.pdf")
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "reading its text") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 1*time.Second+workerWaitDelay+time.Second {
		t.Fatalf("the fetch took %v", took)
	}
}

// A fetcher that reads far more than the default 2 MB hands all of it to
// its worker.
func TestWorkerTakesWhatTheFetcherReads(t *testing.T) {
	n := newTestNet()
	n.resolve("big.example", publicIP)
	text := strings.Repeat("Words of a long text. ", 12<<20/22)
	n.serve(t, publicIP, page("text/plain; charset=utf-8", text))
	p, err := n.fetcher(Config{Worker: testWorker, MaxBytes: 16 << 20}, nil).Fetch(fetchCtx(t), "http://big.example/")
	if err != nil || !p.Truncated || len(p.Text) < MaxText-len("Words ") {
		t.Fatalf("%d bytes, truncated %v, %v", len(p.Text), p.Truncated, err)
	}
}

// A file in hand, such as an upload, is read in a worker too, through the
// Fetcher: a PDF bomb fails as too large, or at the deadline.
func TestWorkerReadsAFileInHand(t *testing.T) {
	f := New(Config{Worker: testWorker})
	pdf, _ := os.ReadFile("testdata/report.pdf")
	p, err := f.Extract(fetchCtx(t), pdf, "", "report.pdf")
	if err != nil || p.Title != "Harbour report" || p.URL != "" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	bomb := pdfRepeating("BT ("+strings.Repeat("a", 4<<20)+") Tj ET ", 3000)
	if _, err := f.Extract(fetchCtx(t), bomb, "application/pdf", "bomb.pdf"); !errors.Is(err, ErrTooLarge) && !(raceBuild && errors.Is(err, ErrTimeout)) {
		t.Fatalf("err = %v", err)
	}
}
