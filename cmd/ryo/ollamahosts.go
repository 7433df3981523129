package main

import (
	"cmp"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// OllamaServer is one model server of OLLAMA_HOST (or RYO_OPENAI_URL)
// and how many requests ryo sends it at once.
type OllamaServer struct {
	URL      *url.URL
	Parallel int
	base     string // the path asked when the address names none: "/v1" for an OpenAI-compatible server
}

// maxParallel bounds a server's requests at once.
const maxParallel = 256

// ollamaHosts reads OLLAMA_HOST: one server, or several separated by
// commas, each a host or URL read the way Ollama's own CLI reads one (a
// bare host gets http:// and port 11434), optionally followed by
// "=N", the requests it answers at once (else parallel, from
// RYO_OLLAMA_PARALLEL): "http://gpu1:11434=4,gpu2".
func (r *reader) ollamaHosts(name, def string, parallel int) []OllamaServer {
	return r.modelHosts(name, r.str(name, def), parallel, ollamaServer,
		"want a host or URL such as http://127.0.0.1:11434, or several separated by commas, each optionally followed by =N requests at once (1–%d)")
}

// openAIServers reads RYO_OPENAI_URL: none, one OpenAI-compatible server,
// or several that share the turns as OLLAMA_HOST's do, each an http(s)
// URL optionally followed by "=N". Each is an API's base, to which ryo
// adds the paths it asks: a query or a fragment would not be sent, and
// would be logged where a key put in one must not be.
func (r *reader) openAIServers(name string, parallel int) []OllamaServer {
	const example = "http://127.0.0.1:8000"
	v := r.str(name, "")
	if v == "" {
		return nil
	}
	servers := r.modelHosts(name, v, parallel, openAIServer,
		"want an http(s) URL such as "+example+", or several separated by commas, each optionally followed by =N requests at once (1–%d)")
	for _, s := range servers {
		switch u := s.URL; {
		case r.err != nil:
		case u.RawQuery != "" || u.ForceQuery:
			r.fail(name, "has a query (?…), which ryo would not send: name the API's base alone, such as %s; a key goes in RYO_OPENAI_API_KEY", example)
		case u.Fragment != "" || strings.Contains(v, "#"):
			r.fail(name, "has a fragment (#…): name the API's base alone, such as %s", example)
		}
	}
	return servers
}

// modelHosts reads a list of model servers, refusing one listed twice
// however it is written.
func (r *reader) modelHosts(name, v string, parallel int, read func(string, int) (OllamaServer, bool), want string) []OllamaServer {
	var out []OllamaServer
	seen := map[string]bool{}
	for entry := range strings.SplitSeq(v, ",") {
		s, ok := read(strings.TrimSpace(entry), parallel)
		if !ok {
			r.fail(name, want, maxParallel)
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
// tells servers apart in the log, the metrics and `ryo doctor`, an
// OpenAI-compatible server (its path /v1 unless it names another) from
// the Ollama server it may be. One server
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

// path is the server's path without a trailing slash, or the one asked
// when it names none.
func (s OllamaServer) path() string { return cmp.Or(strings.TrimRight(s.URL.Path, "/"), s.base) }

// atOnce splits "=N" off an entry: the entry without it, and N, else
// parallel. A last "=" followed by part of a URL (a password holding
// "="), or in its query, is no count of requests.
func atOnce(v string, parallel int) (string, int, bool) {
	i := strings.LastIndex(v, "=")
	if i < 0 || strings.ContainsAny(v[i+1:], "@/:[]") || strings.Contains(v[:i], "?") {
		return v, parallel, true
	}
	n, err := strconv.Atoi(strings.TrimSpace(v[i+1:]))
	if err != nil || n < 1 || n > maxParallel {
		return "", 0, false
	}
	return strings.TrimSpace(v[:i]), n, true
}

// openAIServer reads one entry of RYO_OPENAI_URL.
func openAIServer(v string, parallel int) (OllamaServer, bool) {
	v, parallel, ok := atOnce(v, parallel)
	if !ok {
		return OllamaServer{}, false
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return OllamaServer{}, false
	}
	return OllamaServer{URL: u, Parallel: parallel, base: "/v1"}, true
}

// ollamaServer reads one entry of OLLAMA_HOST.
func ollamaServer(v string, parallel int) (OllamaServer, bool) {
	v, parallel, ok := atOnce(v, parallel)
	if !ok {
		return OllamaServer{}, false
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
