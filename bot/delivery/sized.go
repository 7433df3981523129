package delivery

import "net/http"

// sizedLimit is the largest body sized reads ahead.
const sizedLimit = 64 << 10

// sized passes each Bot API call on as the library made it.
type sized struct{ c *http.Client }

func (s sized) Do(r *http.Request) (*http.Response, error) { return s.c.Do(r) }
