// Package fetch reads one web page, or a file already in hand, and turns it
// into text a model can read: the page's title and its main content as
// Markdown-ish text, links kept as [text](url).
//
// A Fetcher is safe to give to anyone who can type a URL. It speaks only
// http and https, to ports 80 and 443, and refuses every address that is
// not on the public internet — loopback, private, link-local, carrier-grade
// NAT, multicast, unspecified, IPv6 unique-local and link-local, and the
// same written as IPv4-mapped, NAT64 or 6to4 addresses — and the cloud
// metadata services always. The check is made in the dialer, on the very
// address that is dialled, once per connection: a name is resolved once,
// every address it resolves to is checked, and the checked address is what
// is dialled, so a name that answers differently the second time (DNS
// rebinding) gains nothing. Redirects, at most five, go through the same
// dialer. The process's HTTP(S)_PROXY is ignored: a proxy would resolve and
// dial names itself, out of the guard's sight.
//
// What is read is bounded: the body to 2 MB after decompression (so a gzip
// bomb stops at 2 MB), the whole fetch to 10 seconds, the text returned to
// MaxText bytes. HTML goes through a readability library that finds the main
// content; plain text and JSON pass through; PDF text is extracted; any
// other type is refused. Bodies in charsets other than UTF-8 are decoded.
//
// Turning bytes into text is where a hostile file does its harm: a small
// PDF can ask the reader for gigabytes or hours. With Config.Worker set, it
// is done in a worker process — ryo started again with a hidden
// subcommand, the bytes on its standard input, the page on its output —
// whose memory the kernel caps at WorkerMemory and which is killed at the
// fetch's deadline; at most two run at once. Such a file then fails its
// fetch, with ErrTooLarge or ErrTimeout, and the bot goes on.
//
// Extract does the second half alone, for bytes already in hand such as an
// uploaded file; Fetcher.Extract does it in the Fetcher's worker. Either
// drops from the text what could hide or disguise it when quoted (format
// and control characters, links that are not http(s) or mailto) and cuts
// the title. Errors wrap the sentinels below, so callers can say what
// went wrong in words.
package fetch
