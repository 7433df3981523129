package main

import (
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
		key := s.URL.Scheme + "://" + s.URL.Host + s.URL.Path
		if seen[key] {
			r.fail(name, "the server %s is listed twice", s.URL.Redacted())
			return []OllamaServer{{URL: &url.URL{}, Parallel: 1}}
		}
		seen[key] = true
		out = append(out, s)
	}
	return out
}

// ollamaServer reads one entry of OLLAMA_HOST.
func ollamaServer(v string, parallel int) (OllamaServer, bool) {
	if i := strings.LastIndex(v, "="); i >= 0 {
		n, err := strconv.Atoi(v[i+1:])
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
