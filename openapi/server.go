package openapi

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// server is the base URL an operation is called at: the first server the
// operation names, else its path's, else the document's (or BaseURL in
// their place). Variables take their defaults. A relative URL is read
// against BaseURL, else against the document's own URL.
func (g *generator) server(o *docOp) (string, error) {
	var chosen *openapi3.Server
	switch {
	case o.op.Servers != nil && len(*o.op.Servers) > 0:
		chosen = (*o.op.Servers)[0]
	case len(o.item.Servers) > 0:
		chosen = o.item.Servers[0]
	case g.api.BaseURL != "":
		return absolute(g.api.BaseURL, "")
	case len(g.doc.Servers) > 0:
		chosen = g.doc.Servers[0]
	}
	raw := ""
	if chosen != nil {
		raw = expand(chosen)
	}
	against := g.api.BaseURL
	if against == "" {
		against = g.api.DocumentURL
	}
	return absolute(raw, against)
}

// expand fills a server URL's variables with their defaults.
func expand(s *openapi3.Server) string {
	out := s.URL
	for _, name := range sortedKeys(s.Variables) {
		if v := s.Variables[name]; v != nil {
			out = strings.ReplaceAll(out, "{"+name+"}", v.Default)
		}
	}
	return out
}

// absolute reads raw against base and checks that the result is an http
// or https URL with a host, without a trailing slash.
func absolute(raw, base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("its server URL %q cannot be read", raw)
	}
	if !u.IsAbs() {
		if base == "" {
			return "", errors.New("its server URL is relative or missing, and no base URL is set")
		}
		b, err := url.Parse(base)
		if err != nil || !b.IsAbs() {
			return "", fmt.Errorf("the base URL %q is not an absolute URL", base)
		}
		if raw == "" {
			u = b
		} else {
			u = b.ResolveReference(u)
		}
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("its server URL %q is not an http or https URL", u.Redacted())
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}
