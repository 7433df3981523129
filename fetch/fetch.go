package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Errors a fetch or an extraction ends with, wrapped with the details.
var (
	ErrBadURL           = errors.New("not a web address that can be read")
	ErrRefusedAddress   = errors.New("refused: not a public web address")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrTimeout          = errors.New("the page took too long")
	ErrTooLarge         = errors.New("too large")
	ErrUnsupportedType  = errors.New("not a kind of content that can be read")
	ErrHTTPStatus       = errors.New("the server answered with an error")
	ErrUnreachable      = errors.New("the server cannot be reached")
	ErrUnreadable       = errors.New("the content is broken")
	ErrNoText           = errors.New("no text")
)

// Defaults for a Config that leaves them zero.
const (
	DefaultMaxBytes     = 2 << 20
	DefaultTimeout      = 10 * time.Second
	DefaultMaxRedirects = 5
	DefaultUserAgent    = "ryo-web-fetch/1 (+https://github.com/ryo-bot/ryo)"
)

// Resolver looks names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config says how a Fetcher reads.
type Config struct {
	// AllowPrivate lets the fetcher read addresses on this machine and its
	// networks (loopback, private, link-local, CGNAT, unique-local), on
	// any port. Cloud metadata, multicast and unspecified addresses stay
	// refused.
	AllowPrivate bool
	MaxBytes     int64         // the most bytes of body read, after decompression; DefaultMaxBytes when 0
	Timeout      time.Duration // the whole fetch, redirects and body included; DefaultTimeout when 0
	MaxRedirects int           // DefaultMaxRedirects when 0; none followed when negative
	Resolver     Resolver      // net.DefaultResolver when nil
	// Dial connects to address, an IP address and port that has passed the
	// guard; a net.Dialer that checks the address once more when nil.
	// Tests set it to reach a local server in place of a public address.
	Dial      func(ctx context.Context, network, address string) (net.Conn, error)
	TLS       *tls.Config  // for tests that serve https; the system's roots when nil
	Log       *slog.Logger // told what was refused and what failed; nowhere when nil
	UserAgent string       // DefaultUserAgent when ""
	// Worker, when set, makes the command a body's text is extracted in:
	// a process of its own that runs ServeWorker, such as the program
	// itself started with a hidden subcommand. A hostile PDF or page can
	// then at worst fail its fetch — the worker is killed at the fetch's
	// deadline, and dies past WorkerMemory — never stall or exhaust this
	// process. When nil, text is extracted in this process.
	Worker func(ctx context.Context) *exec.Cmd
}

// Fetcher reads web pages within its Config's bounds. It is safe for
// concurrent use.
type Fetcher struct {
	cfg     Config
	client  *http.Client
	workers chan struct{} // one token per worker running
}

// New returns a Fetcher for cfg.
func New(cfg Config) *Fetcher {
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Dial == nil {
		d := &net.Dialer{Control: guardControl(cfg.AllowPrivate)}
		cfg.Dial = d.DialContext
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	f := &Fetcher{cfg: cfg, workers: make(chan struct{}, maxWorkers)}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would resolve and dial out of the guard's sight
		DialContext:            f.dial,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        cfg.TLS,
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
	}
	f.client = &http.Client{Transport: transport, CheckRedirect: f.checkRedirect}
	return f
}

// Fetch reads rawURL and returns its text. Errors wrap the package's
// sentinels, with words a person can be shown.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	u, err := f.parse(rawURL)
	if err == nil {
		ctx, cancel := context.WithTimeoutCause(ctx, f.cfg.Timeout, ErrTimeout)
		defer cancel()
		var page Page
		if page, err = f.get(ctx, u); err == nil {
			f.cfg.Log.DebugContext(ctx, "web page read", "host", u.Host, "type", page.ContentType, "chars", len(page.Text), "truncated", page.Truncated)
			return page, nil
		}
	}
	host := ""
	if u != nil {
		host = u.Host
	}
	if errors.Is(err, ErrRefusedAddress) || errors.Is(err, ErrBadURL) {
		f.cfg.Log.WarnContext(ctx, "web fetch refused", "host", host, "err", err)
	} else {
		f.cfg.Log.InfoContext(ctx, "web page not read", "host", host, "err", err)
	}
	return Page{}, err
}

// parse reads rawURL and checks it as checkURL does.
func (f *Fetcher) parse(rawURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return nil, fmt.Errorf("%w: the link does not parse", ErrBadURL) // not quoted: a broken link may still hold a token
	}
	return u, f.checkURL(u)
}

// checkURL refuses what is not a public http(s) address before anything
// is looked up: other schemes, credentials, ports other than 80 and 443,
// IP addresses refusal refuses or written in odd forms, and names of
// local networks and metadata services.
func (f *Fetcher) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: only http and https links can be read", ErrBadURL)
	}
	if u.User != nil {
		return fmt.Errorf("%w: links with a user name or password are not read", ErrBadURL)
	}
	host, err := asciiHost(u)
	if err != nil {
		return err
	}
	if host == "" {
		return fmt.Errorf("%w: the link has no host", ErrBadURL)
	}
	if p := u.Port(); p != "" && p != "80" && p != "443" && !f.cfg.AllowPrivate {
		return fmt.Errorf("%w: port %s (only the web's ports 80 and 443 are read)", ErrRefusedAddress, p)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if why := refusal(ip, f.cfg.AllowPrivate); why != "" {
			return fmt.Errorf("%w: %s is %s", ErrRefusedAddress, host, why)
		}
		return nil
	}
	if ip, ok := oddIPv4(host); ok {
		return fmt.Errorf("%w: %s is the IP address %s written in an unusual form", ErrRefusedAddress, host, ip)
	}
	if why := nameRefusal(host, f.cfg.AllowPrivate); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrRefusedAddress, host, why)
	}
	return nil
}

// asciiHost writes u's host as the network knows it, in ASCII — a name in
// another script as punycode, full-width digits and ideographic full stops
// as ASCII ones, invisible characters dropped, as the HTTP client would
// before it dials — and returns it, so that every check sees the name that
// is looked up. A host that has no such form is a bad link.
func asciiHost(u *url.URL) (string, error) {
	host := u.Hostname()
	if isASCII(host) {
		return host, nil
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil || !isASCII(ascii) {
		return "", fmt.Errorf("%w: the host name cannot be written as a web address", ErrBadURL)
	}
	ascii = strings.ToLower(ascii)
	if p := u.Port(); p != "" {
		u.Host = net.JoinHostPort(ascii, p)
	} else {
		u.Host = ascii
	}
	return ascii, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// checkRedirect lets the client follow a redirect to an address checkURL
// passes, at most MaxRedirects times. Where it leads is checked again as
// it is dialled.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, max(f.cfg.MaxRedirects, 0))
	}
	if err := f.checkURL(req.URL); err != nil {
		return fmt.Errorf("redirected to %s: %w", req.URL.Host, err)
	}
	return nil
}

// dial resolves address's host once, refuses it if any address it
// resolves to is refused, and dials the addresses it checked — never the
// name again, so a second answer cannot differ from the one checked.
func (f *Fetcher) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	ips, err := f.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, ip := range ips {
		if why := refusal(ip, f.cfg.AllowPrivate); why != "" {
			return nil, fmt.Errorf("%w: %s resolves to %s, %s", ErrRefusedAddress, host, ip, why)
		}
	}
	var last error
	for i, ip := range ips {
		conn, err := f.dialOne(ctx, network, net.JoinHostPort(ip.WithZone("").String(), port), i < len(ips)-1)
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// dialOne dials one checked address; while others are left to try, it
// gives this one a third of the fetch's time, so that one address out of
// reach does not use it all.
func (f *Fetcher) dialOne(ctx context.Context, network, address string, more bool) (net.Conn, error) {
	if more {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.cfg.Timeout/3)
		defer cancel()
	}
	return f.cfg.Dial(ctx, network, address)
}

// resolve returns the addresses of host, which may be an IP address.
func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	ips, err := f.cfg.Resolver.LookupNetIP(ctx, "ip", host)
	if err == nil && len(ips) == 0 {
		err = errors.New("no address")
	}
	if err != nil {
		if context.Cause(ctx) != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("%w: %s cannot be found: %v", ErrUnreachable, host, err)
	}
	return ips, nil
}

// get asks for u and reads the answer.
func (f *Fetcher) get(ctx context.Context, u *url.URL) (Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,application/pdf;q=0.8,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		return Page{}, f.failure(ctx, u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, fmt.Errorf("%w: %s answered %s", ErrHTTPStatus, final.Host, resp.Status)
	}
	contentType := resp.Header.Get("Content-Type")
	media, name := mediaType(contentType), path.Base(final.Path)
	k := kindOf(media, name)
	if k == unsupported && !generic(media) {
		return Page{}, fmt.Errorf("%w: %s", ErrUnsupportedType, describe(media, name))
	}
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		return Page{}, fmt.Errorf("%w: the body is encoded as %s, which is not read", ErrUnsupportedType, enc)
	}
	if k == pdfKind && resp.ContentLength > f.cfg.MaxBytes {
		return Page{}, fmt.Errorf("%w: the PDF is %d bytes; at most %d are read", ErrTooLarge, resp.ContentLength, f.cfg.MaxBytes)
	}
	body, cut, err := readAtMost(resp.Body, f.cfg.MaxBytes)
	if err != nil {
		return Page{}, f.failure(ctx, final, err)
	}
	if cut && (k == pdfKind || k == unsupported) { // a cut PDF cannot be read
		return Page{}, fmt.Errorf("%w: the file is larger than the %d bytes that are read", ErrTooLarge, f.cfg.MaxBytes)
	}
	page, err := f.extract(ctx, body, contentType, name, final.String())
	if err != nil {
		return Page{}, err
	}
	page.Truncated = page.Truncated || cut
	return page, nil
}

// readAtMost reads r to its end or to n bytes, and reports whether there
// was more.
func readAtMost(r io.Reader, n int64) ([]byte, bool, error) {
	body, err := io.ReadAll(io.LimitReader(r, n+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(body)) > n {
		return body[:n], true, nil
	}
	return body, false, nil
}

// failure says why asking for u failed: the guard's or the redirect
// check's own error, the deadline, or the server out of reach.
func (f *Fetcher) failure(ctx context.Context, u *url.URL, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	for _, known := range []error{ErrRefusedAddress, ErrBadURL, ErrTooManyRedirects, ErrUnreachable} {
		if errors.Is(err, known) {
			return err
		}
	}
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("%w: %s did not finish answering within %v", ErrTimeout, u.Host, f.cfg.Timeout)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, u.Host, err)
}
