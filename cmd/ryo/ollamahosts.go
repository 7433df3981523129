package main

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// OllamaServer is one Ollama server of OLLAMA_HOST and how many requests
// ryo sends it at once.
type OllamaServer struct {
	URL      *url.URL
	Parallel int
}

// maxParallel bounds a server's requests at once.
const maxParallel = 256

// ollamaHosts reads OLLAMA_HOST: one server, or several separated by
// commas, each a host or URL read the way Ollama's own CLI reads one (a
// bare host gets http:// and port 11434), optionally followed by
// "=N", the requests it answers at once (else parallel, from
// RYO_OLLAMA_PARALLEL): "http://gpu1:11434=4,gpu2".
func (r *reader) ollamaHosts(name, def string, parallel int) []OllamaServer {
	var out []OllamaServer
	seen := map[string]bool{}
	for entry := range strings.SplitSeq(r.str(name, def), ",") {
		s, ok := ollamaServer(strings.TrimSpace(entry), parallel)
		if !ok {
			r.fail(name, "want a host or URL such as http://127.0.0.1:11434, or several separated by commas, each optionally followed by =N requests at once (1–%d)", maxParallel)
			return []OllamaServer{{URL: &url.URL{}, Parallel: 1}}
		}
		key := strings.ToLower(s.Name())
		if ip := net.ParseIP(s.URL.Hostname()); ip != nil {
			key = net.JoinHostPort(ip.String(), s.port()) + s.path()
		}
		if seen[key] {
			r.fail(name, "the server %s is listed twice", s.URL.Redacted())
			return []OllamaServer{{URL: &url.URL{}, Parallel: 1}}
		}
		seen[key] = true
		out = append(out, s)
	}
	return out
}

// Name is the server's host, port and path, without its password: it
// tells servers apart in the log, the metrics and `ryo doctor`. One server
// written two ways (a name's case, a port left to its default, a trailing
// slash) has one name, up to the case of its host.
func (s OllamaServer) Name() string {
	return net.JoinHostPort(s.URL.Hostname(), s.port()) + s.path()
}

// port is the server's port, or its scheme's default.
func (s OllamaServer) port() string {
	if p := s.URL.Port(); p != "" {
		return p
	}
	if s.URL.Scheme == "https" {
		return "443"
	}
	return "80"
}

// path is the server's path without a trailing slash.
func (s OllamaServer) path() string { return strings.TrimRight(s.URL.Path, "/") }

// ollamaServer reads one entry of OLLAMA_HOST. A last "=" followed by
// part of a URL (a password holding "=") is no count of requests.
func ollamaServer(v string, parallel int) (OllamaServer, bool) {
	if i := strings.LastIndex(v, "="); i >= 0 && !strings.ContainsAny(v[i+1:], "@/:[]") {
		n, err := strconv.Atoi(strings.TrimSpace(v[i+1:]))
		if err != nil || n < 1 || n > maxParallel {
			return OllamaServer{}, false
		}
		v, parallel = strings.TrimSpace(v[:i]), n
	}
	bare := !strings.Contains(v, "://")
	if bare {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if v == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return OllamaServer{}, false
	}
	if u.Port() == "" && bare {
		u.Host += ":11434"
	}
	return OllamaServer{URL: u, Parallel: parallel}, true
}
