package delivery

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	tg "github.com/go-telegram/bot"
)

// writeCounter counts the writes, each one system call, that an HTTP
// client makes on its connections.
type writeCounter struct{ writes atomic.Int64 }

func (w *writeCounter) client() *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn{c, &w.writes}, nil
	}}}
}

type countedConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countedConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// botAPI is a Bot API server that answers every call with a sent message
// and keeps the last request's body and length.
type botAPI struct {
	*httptest.Server
	body    atomic.Value // string
	length  atomic.Int64
	chunked atomic.Bool
}

func newBotAPI(t testing.TB) *botAPI {
	s := &botAPI{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.body.Store(string(b))
		s.length.Store(r.ContentLength)
		s.chunked.Store(len(r.TransferEncoding) > 0)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, sentAnswer)
	}))
	t.Cleanup(s.Close)
	return s
}

// sentAnswer is Telegram's answer to a sent message: the message, as a
// person sees it.
var sentAnswer = `{"ok":true,"result":{"message_id":7,"from":{"id":7900000001,"is_bot":true,"first_name":"Ryo","username":"ryo_test_bot"},` +
	`"chat":{"id":42,"first_name":"Ann","username":"ann","type":"private"},"date":1764201600,"text":"` +
	strings.Repeat("Привет, мир! ", 40) + `","entities":[` + strings.TrimSuffix(strings.Repeat(`{"offset":8,"length":3,"type":"bold"},`, 40), ",") + `]}}`

func sendOne(tb testing.TB, api *tg.Bot, text string) {
	m, err := api.SendMessage(context.Background(), &tg.SendMessageParams{ChatID: 42, Text: text, ParseMode: "HTML"})
	if err != nil || m.ID != 7 {
		tb.Fatalf("send = %v, %v", m, err)
	}
}

func newAPI(tb testing.TB, url string, c tg.HttpClient) *tg.Bot {
	api, err := tg.New("123:abc", tg.WithServerURL(url), tg.WithSkipGetMe(), tg.WithHTTPClient(0, c))
	if err != nil {
		tb.Fatal(err)
	}
	return api
}

// BenchmarkSendMessage counts the writes on the wire of one sendMessage
// call, as the library streams its body and as ryo sends it.
func BenchmarkSendMessage(b *testing.B) {
	for _, tt := range []struct {
		name string
		wrap func(*http.Client) tg.HttpClient
	}{
		{"streamed", func(c *http.Client) tg.HttpClient { return c }},
		{"sized", func(c *http.Client) tg.HttpClient { return sized{c} }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := newBotAPI(b)
			var w writeCounter
			api := newAPI(b, s.URL, tt.wrap(w.client()))
			text := strings.Repeat("Привет, <b>мир</b>! ", 40)
			sendOne(b, api, text) // dials
			w.writes.Store(0)
			b.ResetTimer()
			for b.Loop() {
				sendOne(b, api, text)
			}
			b.ReportMetric(float64(w.writes.Load())/float64(b.N), "writes/op")
		})
	}
}

func TestSizedBody(t *testing.T) {
	for _, tt := range []struct {
		name    string
		text    string
		chunked bool
	}{
		{"message", "Привет, <b>мир</b>!", false},
		{"beyond the read-ahead", strings.Repeat("x", sizedLimit), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newBotAPI(t)
			var w writeCounter
			sendOne(t, newAPI(t, s.URL, sized{w.client()}), tt.text)
			body := s.body.Load().(string)
			if s.chunked.Load() != tt.chunked || !tt.chunked && s.length.Load() != int64(len(body)) {
				t.Fatalf("chunked %v, length %d of %d; want chunked %v", s.chunked.Load(), s.length.Load(), len(body), tt.chunked)
			}
			if !strings.Contains(body, "\r\n\r\n"+tt.text+"\r\n") || !strings.Contains(body, `name="chat_id"`+"\r\n\r\n42\r\n") {
				t.Fatalf("the form lost a field: %.300q", body)
			}
			if !tt.chunked && w.writes.Load() != 1 {
				t.Fatalf("%d writes, want the request in 1", w.writes.Load())
			}
		})
	}
}

// A body that fails to read fails the call as it did without sized.
func TestSizedBodyFails(t *testing.T) {
	s := newBotAPI(t)
	var w writeCounter
	pr, pw := io.Pipe()
	pw.CloseWithError(io.ErrUnexpectedEOF)
	r, _ := http.NewRequest(http.MethodPost, s.URL, pr)
	resp, err := sized{w.client()}.Do(r)
	if err == nil || !strings.Contains(err.Error(), io.ErrUnexpectedEOF.Error()) {
		if resp != nil {
			resp.Body.Close()
		}
		t.Fatalf("do = %v, want the body's error", err)
	}
}
