package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// params are a request's parameters flattened to strings, the way the Bot
// API sees them: form values as sent, JSON strings unquoted, other JSON
// values (numbers, objects, arrays) as their JSON text.
type params map[string]string

const maxFormMemory = 32 << 20

// upload is a file sent with a request, as multipart/form-data.
type upload struct {
	name, mimeType string
	data           []byte
}

// readParams collects query-string and body parameters from any of the
// three encodings Telegram accepts, and the files of a multipart body.
// Body values win over the query.
func readParams(r *http.Request) (params, map[string]upload, error) {
	p := params{}
	p.addValues(r.URL.Query())
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch media {
	case "multipart/form-data":
		files, err := p.addMultipart(r)
		return p, files, err
	case "application/x-www-form-urlencoded":
		return p, nil, p.addForm(r)
	case "application/json":
		return p, nil, p.addJSON(r.Body)
	}
	return p, nil, nil
}

func (p params) addValues(v url.Values) {
	for k, vs := range v {
		if len(vs) > 0 {
			p[k] = vs[0]
		}
	}
}

func (p params) addMultipart(r *http.Request) (map[string]upload, error) {
	err := r.ParseMultipartForm(maxFormMemory)
	if errors.Is(err, io.EOF) {
		return nil, nil // go-telegram sends an empty body for methods without parameters
	}
	if err != nil {
		return nil, badRequest("can't parse multipart form: %v", err)
	}
	defer r.MultipartForm.RemoveAll()
	p.addValues(r.MultipartForm.Value)
	uploads := map[string]upload{}
	for name, files := range r.MultipartForm.File {
		p[name] = files[0].Filename
		f, err := files[0].Open()
		if err != nil {
			return nil, badRequest("can't read file %q: %v", name, err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, badRequest("can't read file %q: %v", name, err)
		}
		uploads[name] = upload{name: files[0].Filename, mimeType: files[0].Header.Get("Content-Type"), data: data}
	}
	return uploads, nil
}

func (p params) addForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return badRequest("can't parse form: %v", err)
	}
	p.addValues(r.PostForm)
	return nil
}

func (p params) addJSON(body io.Reader) error {
	var fields map[string]json.RawMessage
	err := json.NewDecoder(body).Decode(&fields)
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return badRequest("can't parse JSON object: %v", err)
	}
	for k, raw := range fields {
		if v, ok := flattenJSON(raw); ok {
			p[k] = v
		}
	}
	return nil
}

// flattenJSON turns one JSON value into its form-field string; null is absent.
func flattenJSON(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil || buf.String() == "null" {
		return "", false
	}
	return buf.String(), true
}

// request is one call's parameters being read by a handler. Typed readers
// keep the first conversion error in err, so a handler checks it once.
type request struct {
	ctx   context.Context
	p     params
	files map[string]upload
	err   error
}

func (r *request) str(name string) string { return r.p[name] }

func (r *request) int64(name string) int64 {
	v := strings.TrimSpace(r.p[name])
	if v == "" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && r.err == nil {
		r.err = badRequest("field %q must be an integer", name)
	}
	return n
}

func (r *request) int(name string) int { return int(r.int64(name)) }

func (r *request) bool(name string) bool {
	v := strings.TrimSpace(r.p[name])
	return strings.EqualFold(v, "true") || v == "1"
}
