package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

const article = `<!doctype html>
<html><head><title>Ferry times | Island News</title></head>
<body>
<nav><a href="/">Home</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a></nav>
<article>
<h1>Ferry times change in winter</h1>
<p>From the first of December the ferry to the island leaves at seven every morning, an hour later than in summer.
The harbour master said the change follows the <a href="/reports/winter">winter report</a> published last week.</p>
<p>Tickets still cost twelve euros and are sold on board. Islanders with a season pass travel free, as before,
and the last boat back leaves the island at six in the evening.</p>
<h2>What stays the same</h2>
<ul><li>Bicycles travel free.</li><li>Dogs travel on a lead.</li></ul>
<p>Questions go to the <a href="https://harbour.example/contact">harbour office</a>.</p>
</article>
<footer>© Island News · <a href="/privacy">Privacy</a></footer>
<script>trackEverything()</script>
</body></html>`

// A public page is read: its title, its main content as Markdown with
// links made absolute, without its navigation, footer or scripts.
func TestFetchAnArticle(t *testing.T) {
	n := newTestNet()
	n.resolve("news.example", publicIP)
	n.serve(t, publicIP, page("text/html; charset=utf-8", article))
	p, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://news.example/2026/ferry")
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "http://news.example/2026/ferry" || p.ContentType != "text/html" || p.Truncated || !strings.Contains(p.Title, "Ferry times") {
		t.Fatalf("page = %+v", p)
	}
	for _, want := range []string{"leaves at seven every morning", "[winter report](http://news.example/reports/winter)",
		"[harbour office](https://harbour.example/contact)", "## What stays the same", "- Bicycles travel free.\n- Dogs travel on a lead."} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("the text lacks %q:\n%s", want, p.Text)
		}
	}
	for _, never := range []string{"trackEverything", "Sport", "Privacy"} {
		if strings.Contains(p.Text, never) {
			t.Errorf("the text holds %q:\n%s", never, p.Text)
		}
	}
	if lookups, dialled := n.record(); len(lookups) != 1 || len(dialled) != 1 || dialled[0] != publicIP+":80" {
		t.Fatalf("looked up %v, dialled %v", lookups, dialled)
	}
}

// A public page that redirects to a private address is refused at the
// redirect, whether the new link names the address or a name that
// resolves to it; the private address is never dialled.
func TestRedirectToAPrivateAddress(t *testing.T) {
	for _, target := range []string{"http://10.0.0.5/admin", "http://intranet.example/", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:8080/"} {
		n := newTestNet()
		n.resolve("news.example", publicIP)
		n.resolve("intranet.example", "192.168.0.10")
		n.serve(t, publicIP, http.RedirectHandler(target, http.StatusFound))
		var logs bytes.Buffer
		_, err := n.fetcher(Config{}, &logs).Fetch(fetchCtx(t), "http://news.example/story")
		if !errors.Is(err, ErrRefusedAddress) {
			t.Fatalf("redirect to %s: err = %v; want a refusal", target, err)
		}
		if _, dialled := n.record(); len(dialled) != 1 || dialled[0] != publicIP+":80" {
			t.Fatalf("redirect to %s: dialled %v", target, dialled)
		}
		if !strings.Contains(logs.String(), "web fetch refused") {
			t.Fatalf("the log says %q", logs.String())
		}
	}
}

// A redirect of any kind — 301, 307 or 308 with a body — to a link with no
// scheme that leads to this machine, to another scheme, or to a refused
// port or address is refused; nothing but the first server is dialled.
// Refresh headers and <meta http-equiv=refresh> are never followed.
func TestHostileRedirects(t *testing.T) {
	targets := []string{"//127.0.0.1/", "///127.0.0.1/", "ftp://news.example/x", "file:///etc/passwd", "gopher://news.example/",
		"http://news.example:22/", "http://[::ffff:a9fe:a9fe]/", "http://ⓛocalhost/", "http://127。0。0。1/"}
	for _, target := range targets {
		for _, code := range []int{http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			n := newTestNet()
			n.resolve("news.example", publicIP)
			n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", target)
				w.WriteHeader(code)
				fmt.Fprint(w, "moved")
			}))
			_, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://news.example/story")
			if !errors.Is(err, ErrRefusedAddress) && !errors.Is(err, ErrBadURL) && !errors.Is(err, ErrTooManyRedirects) { // "///127.0.0.1/" is a path here
				t.Errorf("%d to %s: err = %v; want a refusal", code, target, err)
			}
			lookups, dialled := n.record()
			for _, d := range dialled {
				if d != publicIP+":80" {
					t.Errorf("%d to %s: dialled %v", code, target, dialled)
				}
			}
			for _, l := range lookups {
				if l != "news.example" {
					t.Errorf("%d to %s: looked up %v", code, target, lookups)
				}
			}
		}
	}
	n := newTestNet()
	n.resolve("news.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Refresh", "0; url=http://127.0.0.1/")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><meta http-equiv="refresh" content="0; url=http://10.0.0.1/"></head><body><p>Still here.</p></body></html>`)
	}))
	p, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://news.example/story")
	if _, dialled := n.record(); err != nil || p.Text != "Still here." || len(dialled) != 1 {
		t.Fatalf("page %+v, %v; dialled %v", p, err, dialled)
	}
}

// DNS rebinding: a name that resolves to a public address, then to
// 127.0.0.1, is dialled at the address that was checked, and a new
// connection that would take the second answer is refused.
func TestDNSRebinding(t *testing.T) {
	n := newTestNet()
	n.resolve("rebind.example", publicIP, "127.0.0.1")
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/first" {
			w.Header().Set("Connection", "close") // the next request needs a new connection, and a new lookup
			http.Redirect(w, r, "/second", http.StatusFound)
			return
		}
		page("text/plain", "the second page")(w, r)
	}))
	f := n.fetcher(Config{}, nil)
	_, err := f.Fetch(fetchCtx(t), "http://rebind.example/first")
	if !errors.Is(err, ErrRefusedAddress) || !strings.Contains(err.Error(), "rebind.example resolves to 127.0.0.1") {
		t.Fatalf("err = %v; want the second connection refused", err)
	}
	lookups, dialled := n.record()
	if len(lookups) != 2 || len(dialled) != 1 || dialled[0] != publicIP+":80" {
		t.Fatalf("looked up %v, dialled %v; want two lookups and one dial, of the checked address", lookups, dialled)
	}
}

// Up to five redirects are followed; the sixth, or a loop, ends the fetch.
func TestRedirectLimit(t *testing.T) {
	n := newTestNet()
	n.resolve("hops.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch hop, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/")); {
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
		case hop < 5:
			http.Redirect(w, r, fmt.Sprintf("/%d", hop+1), http.StatusFound)
		default:
			page("text/plain", "arrived after "+strconv.Itoa(hop))(w, r)
		}
	}))
	f := n.fetcher(Config{}, nil)
	p, err := f.Fetch(fetchCtx(t), "http://hops.example/0")
	if err != nil || p.Text != "arrived after 5" || p.URL != "http://hops.example/5" {
		t.Fatalf("five redirects: %+v, %v", p, err)
	}
	for _, link := range []string{"http://hops.example/loop", "http://hops.example/-1"} {
		if _, err := f.Fetch(fetchCtx(t), link); !errors.Is(err, ErrTooManyRedirects) {
			t.Fatalf("%s: err = %v", link, err)
		}
	}
	if _, err := n.fetcher(Config{MaxRedirects: -1}, nil).Fetch(fetchCtx(t), "http://hops.example/4"); !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("no redirects allowed: err = %v", err)
	}
}

// A gzip bomb — a few kilobytes that expand to 64 MB — is read no further
// than the byte bound, and what was read comes back cut.
func TestGzipBomb(t *testing.T) {
	var member bytes.Buffer
	z, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	z.Write(bytes.Repeat([]byte("a"), 1<<20))
	z.Close()
	bomb := bytes.NewBuffer(bytes.Repeat(member.Bytes(), 64)) // gzip members one after another expand one after another
	n := newTestNet()
	n.resolve("bomb.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	}))
	p, err := n.fetcher(Config{MaxBytes: 256 << 10}, nil).Fetch(fetchCtx(t), "http://bomb.example/")
	if err != nil || !p.Truncated || len(p.Text) != 256<<10 {
		t.Fatalf("read %d bytes (truncated %v), %v; want 256 KiB, cut, from %d compressed bytes", len(p.Text), p.Truncated, err, bomb.Len())
	}
	n.serve(t, publicIP2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(bytes.Repeat([]byte("%PDF"), 1<<16))
	}))
	n.resolve("big.example", publicIP2)
	if _, err := n.fetcher(Config{MaxBytes: 64 << 10}, nil).Fetch(fetchCtx(t), "http://big.example/report.pdf"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a PDF over the bound: err = %v", err)
	}
}

// A server that sends one byte and then nothing more is given up at the
// deadline.
func TestSlowServerMeetsTheDeadline(t *testing.T) {
	n := newTestNet()
	n.resolve("slow.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // until the client gives up
	}))
	started := time.Now()
	_, err := n.fetcher(Config{Timeout: 300 * time.Millisecond}, nil).Fetch(fetchCtx(t), "http://slow.example/")
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "within 300ms") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Fatalf("took %v", took)
	}
}

// Pages in Latin-1, declared in the header or in a <meta>, windows-1251
// and Shift_JIS come out as UTF-8; so do pages whose declared charset lies
// — UTF-8 called Shift_JIS or UTF-16, UTF-16 with its byte-order mark
// called UTF-8.
func TestCharsets(t *testing.T) {
	latin1 := func(s string) string {
		b, err := charmap.ISO8859_1.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cyrillic, _ := charmap.Windows1251.NewEncoder().String("Привет, мир! Паром уходит в семь.")
	sjis, _ := japanese.ShiftJIS.NewEncoder().String("フェリーは毎朝七時に出ます。")
	para := " " + strings.Repeat("Filler words for the reader. ", 10)
	cases := []struct{ name, ct, body, want string }{
		{"latin-1 in the header", "text/html; charset=ISO-8859-1", latin1("<html><body><p>Café crème, déjà vu à Zürich." + para + "</p></body></html>"), "Café crème, déjà vu à Zürich."},
		{"latin-1 in a meta", "text/html", latin1(`<html><head><meta charset="iso-8859-1"><title>Señor</title></head><body><p>Mañana, año, niño.` + para + `</p></body></html>`), "Mañana, año, niño."},
		{"latin-1 undeclared", "text/html", latin1("<html><body><p>Größe und Maß." + para + "</p></body></html>"), "Größe und Maß."},
		{"windows-1251 in a meta", "text/html", `<html><head><meta charset="windows-1251"></head><body><p>` + cyrillic + para + `</p></body></html>`, "Привет, мир! Паром уходит в семь."},
		{"windows-1251 text", "text/plain; charset=windows-1251", cyrillic, "Привет, мир! Паром уходит в семь."},
		{"a meta that says shift_jis of a utf-8 page", "text/html", `<html><head><meta charset="shift_jis"></head><body><p>Grüße aus Köln, 東京.` + para + `</p></body></html>`, "Grüße aus Köln, 東京."},
		{"a header that says utf-16 of utf-8 text", "text/plain; charset=utf-16", "Grüße aus Köln, 東京.", "Grüße aus Köln, 東京."},
		{"a header that says utf-8 of utf-16 with its mark", "text/html; charset=utf-8", utf16LE("<html><body><p>Grüße aus Köln, 東京." + para + "</p></body></html>"), "Grüße aus Köln, 東京."},
		{"shift_jis in a meta", "text/html", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><p>` + sjis + para + `</p></body></html>`, "フェリーは毎朝七時に出ます。"},
		{"utf-8 undeclared, ascii first", "text/html", "<html><body><p>" + strings.Repeat("x", 2000) + " Übergrößenträger</p></body></html>", "Übergrößenträger"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := newTestNet()
			n.resolve("page.example", publicIP)
			n.serve(t, publicIP, page(c.ct, c.body))
			p, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://page.example/")
			if err != nil || !strings.Contains(p.Text, c.want) {
				t.Fatalf("page = %q, %v; want %q in it", p.Text, err, c.want)
			}
		})
	}
}

// Plain text and JSON pass through; a picture is refused without its
// bytes being read; a server's error is said; a PDF's text is read.
func TestContentTypes(t *testing.T) {
	pdf, err := os.ReadFile("testdata/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	n := newTestNet()
	n.resolve("files.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notes.txt":
			page("text/plain; charset=utf-8", "line one\nline two\n")(w, r)
		case "/data.json":
			page("application/json", `{"ferry":"07:00","price_eur":12}`)(w, r)
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n"))
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(pdf)
		case "/download":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(pdf)
		default:
			http.NotFound(w, r)
		}
	}))
	f := n.fetcher(Config{}, nil)
	get := func(path string) (Page, error) { return f.Fetch(fetchCtx(t), "http://files.example"+path) }
	if p, err := get("/notes.txt"); err != nil || p.Text != "line one\nline two" || p.ContentType != "text/plain" {
		t.Errorf("text: %+v, %v", p, err)
	}
	if p, err := get("/data.json"); err != nil || p.Text != `{"ferry":"07:00","price_eur":12}` || p.ContentType != "application/json" {
		t.Errorf("json: %+v, %v", p, err)
	}
	if _, err := get("/logo.png"); !errors.Is(err, ErrUnsupportedType) || !strings.Contains(err.Error(), "image/png cannot be read") {
		t.Errorf("png: %v", err)
	}
	for _, path := range []string{"/report.pdf", "/download"} {
		p, err := get(path)
		if err != nil || p.Title != "Harbour report" || !strings.Contains(p.Text, "The ferry to the island leaves at seven every morning.") ||
			!strings.Contains(p.Text, "closes in January") || p.ContentType != "application/pdf" {
			t.Errorf("%s: %+v, %v", path, p, err)
		}
	}
	if _, err := get("/missing"); !errors.Is(err, ErrHTTPStatus) || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
	if _, err := f.Fetch(fetchCtx(t), "http://nowhere.example/"); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "nowhere.example cannot be found") {
		t.Errorf("an unknown name: %v", err)
	}
}

// A page without a main part is read whole; one with no text at all says
// so.
func TestPagesWithoutMainContent(t *testing.T) {
	n := newTestNet()
	n.resolve("thin.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/empty" {
			page("text/html", `<html><head><title>Loading…</title><script>boot()</script></head><body><div id="app"></div><img src="x.png"></body></html>`)(w, r)
			return
		}
		page("text/html", `<html><head><title>Links</title></head><body><a href="/a">First</a> · <a href="/b">Second</a></body></html>`)(w, r)
	}))
	f := n.fetcher(Config{}, nil)
	p, err := f.Fetch(fetchCtx(t), "http://thin.example/links")
	if err != nil || p.Title != "Links" || !strings.Contains(p.Text, "[First](http://thin.example/a)") {
		t.Fatalf("links page = %+v, %v", p, err)
	}
	if _, err := f.Fetch(fetchCtx(t), "http://thin.example/empty"); !errors.Is(err, ErrNoText) {
		t.Fatalf("an empty page: %v", err)
	}
}

// A name with several public addresses is read from the first that
// answers, each of them checked.
func TestSecondAddressAnswers(t *testing.T) {
	n := newTestNet()
	n.resolve("two.example", publicIP2+","+publicIP)
	n.serve(t, publicIP, page("text/plain", "from the second"))
	p, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://two.example/")
	if err != nil || p.Text != "from the second" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	if _, dialled := n.record(); len(dialled) != 2 || dialled[0] != publicIP2+":80" || dialled[1] != publicIP+":80" {
		t.Fatalf("dialled %v", dialled)
	}
}

// utf16LE is s in UTF-16, little-endian, after its byte-order mark.
func utf16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, r := range utf16.Encode([]rune(s)) {
		b = append(b, byte(r), byte(r>>8))
	}
	return string(b)
}
