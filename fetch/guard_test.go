package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// Every address off the public internet is refused when a name resolves
// to it, and when it is written in the link itself; nothing is dialled.
func TestRefusedAddresses(t *testing.T) {
	cases := []struct{ addr, why string }{
		{"127.0.0.1", "loopback"},
		{"127.8.9.10", "loopback"},
		{"::1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.254", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "metadata"},
		{"169.254.10.20", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.127.255.254", "carrier-grade NAT"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"255.255.255.255", "reserved"},
		{"fc00::1", "unique-local"},
		{"fd12:3456::1", "unique-local"},
		{"fe80::1", "link-local"},
		{"::ffff:127.0.0.1", "loopback address (IPv4-mapped)"},
		{"::ffff:169.254.169.254", "metadata address (IPv4-mapped)"},
		{"::ffff:10.0.0.1", "private address (IPv4-mapped)"},
		{"64:ff9b::7f00:1", "loopback address (NAT64)"},
		{"64:ff9b::a9fe:a9fe", "metadata address (NAT64)"},
		{"2002:7f00:1::1", "loopback address (6to4)"},
		{"2002:c0a8:101::1", "private address (6to4)"},
		{"fd00:ec2::254", "metadata"},
		{"100.100.100.200", "metadata"},
		{"::7f00:1", "IPv4-compatible"},
		{"2001::1", "Teredo"},
		{"192.0.2.10", "documentation"},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			n := newTestNet()
			n.resolve("victim.example", c.addr)
			var logs bytes.Buffer
			f := n.fetcher(Config{}, &logs)
			_, err := f.Fetch(fetchCtx(t), "http://victim.example/admin")
			if !errors.Is(err, ErrRefusedAddress) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("resolving to %s: err = %v; want a refusal saying %q", c.addr, err, c.why)
			}
			literal := c.addr
			if strings.Contains(literal, ":") {
				literal = "[" + literal + "]"
			}
			if _, err := f.Fetch(fetchCtx(t), "http://"+literal+"/"); !errors.Is(err, ErrRefusedAddress) {
				t.Fatalf("http://%s/: err = %v; want a refusal", literal, err)
			}
			if _, dialled := n.record(); len(dialled) != 0 {
				t.Fatalf("dialled %v", dialled)
			}
			if !strings.Contains(logs.String(), "web fetch refused") || !strings.Contains(logs.String(), "host=victim.example") {
				t.Fatalf("the log says %q", logs.String())
			}
		})
	}
}

// A link that writes an address in a form old resolvers read — a number,
// hex, octal, fewer than four parts — is refused before any lookup, and
// so are the names of this machine, of local networks and of metadata
// services.
func TestRefusedHostForms(t *testing.T) {
	for _, link := range []string{
		"http://2130706433/", "http://0x7f.1/", "http://0x7f000001/", "http://0177.0.0.1/", "http://127.1/",
		"http://017700000001/", "http://0xa9fea9fe/latest/meta-data/", "http://3627733262/",
		"http://localhost/", "http://LOCALHOST./", "http://api.localhost/", "http://printer.local/",
		"http://metadata.google.internal/computeMetadata/v1/", "http://metadata/", "http://router.lan/",
		"http://[fe80::1%25eth0]/", "http://example.com:8080/", "http://example.com:22/", "https://example.com:6379/",
		"http://127。0。0。1/", "http://１２７.０.０.１/", "http://ⓛocalhost/", "http://loc\u00adalhost/", "http://printer.ＬＯＣＡＬ/",
		"http://metadata。google。internal/", "http://０ｘ７ｆ.１/",
	} {
		n := newTestNet()
		_, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), link)
		if !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("%s: err = %v; want a refusal", link, err)
		}
		if lookups, dialled := n.record(); len(lookups)+len(dialled) != 0 {
			t.Errorf("%s: looked up %v, dialled %v", link, lookups, dialled)
		}
	}
}

// A host in another script is looked up and asked for in its ASCII form,
// the one the network knows, and the page says that form: a look-alike
// host reads xn--…, not as the name it imitates.
func TestInternationalHostsAreReadInPunycode(t *testing.T) {
	n := newTestNet()
	n.resolve("xn--bcher-kva.example", publicIP)
	n.serve(t, publicIP, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "host "+r.Host)
	}))
	p, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://BÜCHER.example:80/list")
	if err != nil || p.Text != "host xn--bcher-kva.example:80" || p.URL != "http://xn--bcher-kva.example:80/list" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	if lookups, _ := n.record(); len(lookups) != 1 || lookups[0] != "xn--bcher-kva.example" {
		t.Fatalf("looked up %v", lookups)
	}
	if _, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://a\u200b\u202eb.example/"); !errors.Is(err, ErrBadURL) {
		t.Fatalf("a host with invisible characters: err = %v", err)
	}
}

// Links that are not http(s), or carry credentials, are not read.
func TestBadLinks(t *testing.T) {
	for _, link := range []string{"ftp://example.com/x", "file:///etc/passwd", "gopher://example.com/", "javascript:alert(1)",
		"https://user:secret@example.com/", "https://token@example.com/", "http:///path", "example.com", "http://exa mple.com/", "%zz"} {
		n := newTestNet()
		_, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), link)
		if !errors.Is(err, ErrBadURL) {
			t.Errorf("%s: err = %v; want a bad link", link, err)
		}
		if lookups, _ := n.record(); len(lookups) != 0 {
			t.Errorf("%s: looked up %v", link, lookups)
		}
	}
}

// A name that resolves to a public and a private address is refused
// whole: the guard does not pick the address it likes.
func TestANameWithOnePrivateAddressIsRefused(t *testing.T) {
	n := newTestNet()
	n.resolve("mixed.example", publicIP+",127.0.0.1")
	n.serve(t, publicIP, page("text/plain", "public"))
	_, err := n.fetcher(Config{}, nil).Fetch(fetchCtx(t), "http://mixed.example/")
	if !errors.Is(err, ErrRefusedAddress) || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("err = %v", err)
	}
	if _, dialled := n.record(); len(dialled) != 0 {
		t.Fatalf("dialled %v", dialled)
	}
}

// With private addresses allowed, this machine's servers can be read on
// any port — through the real dialler — but metadata, multicast and
// unspecified addresses stay refused.
func TestAllowPrivate(t *testing.T) {
	n := newTestNet()
	srv := n.serve(t, publicIP, page("text/plain; charset=utf-8", "hello from the LAN"))
	f := New(Config{AllowPrivate: true, Resolver: n}) // the real dialler
	p, err := f.Fetch(fetchCtx(t), srv.URL+"/notes.txt")
	if err != nil || p.Text != "hello from the LAN" {
		t.Fatalf("page = %+v, %v", p, err)
	}
	n.resolve("metadata.example", "169.254.169.254")
	for _, link := range []string{"http://169.254.169.254/latest/meta-data/", "http://metadata.example/", "http://[fd00:ec2::254]/",
		"http://metadata.google.internal/", "http://0.0.0.0/", "http://224.0.0.1/", "http://[::ffff:169.254.169.254]/"} {
		if _, err := f.Fetch(fetchCtx(t), link); !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("%s: err = %v; want a refusal", link, err)
		}
	}
}

// The dialler's own check refuses what the guard refuses, whatever asked
// to dial it.
func TestDialControl(t *testing.T) {
	control := guardControl(false)
	for _, addr := range []string{"127.0.0.1:80", "[::1]:443", "10.0.0.1:80", "[::ffff:127.0.0.1]:80", "169.254.169.254:80", "garbage"} {
		if err := control("tcp", addr, nil); !errors.Is(err, ErrRefusedAddress) {
			t.Errorf("%s: err = %v", addr, err)
		}
	}
	if err := control("tcp4", publicIP+":443", nil); err != nil {
		t.Errorf("a public address: %v", err)
	}
	if err := guardControl(true)("tcp", "127.0.0.1:8080", nil); err != nil {
		t.Errorf("loopback with private allowed: %v", err)
	}
	if err := guardControl(true)("tcp", "169.254.169.254:80", nil); err == nil {
		t.Error("metadata with private allowed passed")
	}
}

func TestOddIPv4(t *testing.T) {
	for host, want := range map[string]string{
		"2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "127.1": "127.0.0.1",
		"10.1.258": "10.1.1.2", "0xA9FEA9FE": "169.254.169.254",
	} {
		ip, ok := oddIPv4(host)
		if !ok || ip != netip.MustParseAddr(want) {
			t.Errorf("%s = %v, %v; want %s", host, ip, ok, want)
		}
	}
	for _, host := range []string{"example.com", "1.2.3.4.5", "256.1.1.1", "0x", "deadbeef", "1..2", "4294967296"} {
		if ip, ok := oddIPv4(host); ok {
			t.Errorf("%s read as %v", host, ip)
		}
	}
}
