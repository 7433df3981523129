package delivery

import (
	"bytes"
	"io"
	"net/http"
)

// sizedLimit is the largest body sized reads ahead: any message or edit,
// far less than a file upload.
const sizedLimit = 64 << 10

// sized sends each Bot API call's body with its length. The library
// streams a call's form through a pipe, of unknown length, so the
// transport sends it chunked, one write to the socket for each piece the
// form writer makes: 9 writes for a sendMessage. sized reads a body of up
// to sizedLimit bytes first and sends it as one: headers and body go out
// in 1 write. A larger body (an upload) or one that fails to read goes
// on as the library made it, streamed from what was read.
type sized struct{ c *http.Client }

func (s sized) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength != 0 {
		return s.c.Do(r)
	}
	body, ok := readAhead(r.Body)
	r = r.WithContext(r.Context())
	if !ok {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return s.c.Do(r)
	}
	r.Body.Close()
	r.ContentLength = int64(len(body))
	r.Body, r.GetBody = http.NoBody, nil
	if len(body) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return s.c.Do(r)
}

// readAhead reads body to its end when that comes within sizedLimit
// bytes; otherwise it returns what it read and false.
func readAhead(body io.Reader) ([]byte, bool) {
	b, err := io.ReadAll(io.LimitReader(body, sizedLimit+1))
	return b, err == nil && len(b) <= sizedLimit
}

type readCloser struct {
	io.Reader
	io.Closer
}
