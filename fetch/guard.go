package fetch

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
)

// ranges are the addresses refused unless private addresses are allowed,
// with what they are, in the words a refusal uses.
var ranges = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "a reserved address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
}

// never are refused even where private addresses are allowed: no page is
// there, or a page that must never be read.
var never = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("169.254.169.254/32"), "a cloud metadata address"},
	{netip.MustParsePrefix("169.254.169.253/32"), "a cloud metadata address"},
	{netip.MustParsePrefix("169.254.170.2/32"), "a cloud metadata address"},
	{netip.MustParsePrefix("100.100.100.200/32"), "a cloud metadata address"},
	{netip.MustParsePrefix("fd00:ec2::/32"), "a cloud metadata address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
}

// Prefixes of IPv6 addresses that carry an IPv4 address inside.
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// refusal says why a is refused — "a loopback address" — or "" when it may
// be dialled. An IPv6 address that carries an IPv4 one (mapped, NAT64,
// 6to4) is judged by the IPv4 address it carries.
func refusal(a netip.Addr, allowPrivate bool) string {
	a = a.WithZone("")
	if inner, how := embedded(a); how != "" {
		if why := refusal(inner, allowPrivate); why != "" {
			return why + " (" + how + ")"
		}
		return ""
	}
	if a == netip.IPv6Loopback() && allowPrivate { // inside ::/96, refused always below
		return ""
	}
	for _, r := range ranges[:2] { // loopback first: ::1 is also IPv4-compatible
		if r.prefix.Contains(a) && !allowPrivate {
			return r.what
		}
	}
	for _, r := range never {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	if allowPrivate {
		return ""
	}
	for _, r := range ranges {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	return ""
}

// embedded returns the IPv4 address inside an IPv6 one, and how it is
// carried; how is "" when a carries none.
func embedded(a netip.Addr) (netip.Addr, string) {
	if a.Is4In6() {
		return a.Unmap(), "IPv4-mapped"
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64"
	case nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), "NAT64"
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), "6to4"
	}
	return netip.Addr{}, ""
}

// refusedSuffixes are domains for local networks only.
var refusedSuffixes = []string{".localhost", ".local", ".internal", ".home.arpa", ".lan"}

// nameRefusal says why host, a name, is refused without looking it up, or
// "".
func nameRefusal(host string, allowPrivate bool) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "metadata" || h == "metadata.google.internal" || h == "instance-data" {
		return "a cloud metadata service"
	}
	if allowPrivate {
		return ""
	}
	if h == "localhost" {
		return "this machine"
	}
	for _, s := range refusedSuffixes {
		if strings.HasSuffix(h, s) {
			return "a name on a local network"
		}
	}
	return ""
}

// oddIPv4 reads host as an IPv4 address in one of the forms old C
// libraries accept besides the dotted quad — 2130706433, 0x7f.1, 0177.0.0.1
// — and reports whether it is one. Such hosts are refused whatever address
// they write: nothing public is linked that way, and resolvers disagree on
// them.
func oddIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32) // 0x.. hex, 0.. octal, else decimal
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// guardControl is the dialler's last word, given the address a socket is
// about to connect to: it refuses what refusal refuses, whatever asked to
// dial it.
func guardControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: cannot read the address %q", ErrRefusedAddress, address)
		}
		if why := refusal(ap.Addr(), allowPrivate); why != "" {
			return fmt.Errorf("%w: %s is %s", ErrRefusedAddress, ap.Addr(), why)
		}
		return nil
	}
}
