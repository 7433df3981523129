package delivery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tg "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
)

// recorder is a Bot API server that answers every call with answer and
// keeps each call's parameters as form values, as Telegram reads them
// from either encoding.
type recorder struct {
	*httptest.Server
	answer string
	mu     sync.Mutex
	params []map[string]string
}

func newRecorder(t testing.TB, answer string) *recorder {
	rec := &recorder{answer: answer}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := map[string]string{"method": r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]}
		media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		switch media {
		case "multipart/form-data":
			if err := r.ParseMultipartForm(1 << 20); err == nil {
				for k, v := range r.MultipartForm.Value {
					p[k] = sameJSON(v[0])
				}
			}
		case "application/json":
			var fields map[string]json.RawMessage
			json.NewDecoder(r.Body).Decode(&fields)
			for k, raw := range fields {
				var s string
				if json.Unmarshal(raw, &s) != nil {
					s = sameJSON(string(raw))
				}
				p[k] = s
			}
		}
		rec.mu.Lock()
		rec.params = append(rec.params, p)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, rec.answer)
	}))
	t.Cleanup(rec.Close)
	return rec
}

// sameJSON is an object or a list written the one way json.Marshal
// writes it, so that two encodings of it compare equal; other values as
// they are.
func sameJSON(s string) string {
	var v any
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") || json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func (r *recorder) last() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.params[len(r.params)-1]
}

func newTelegram(t testing.TB, url string) *Telegram {
	tel, err := New(Options{Token: ryo.Secret("123:abc"), APIURL: url, CallTimeout: 5 * time.Second, Unpaced: true}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return tel
}

// The calls post makes carry the parameters the library's carried.
func TestPostSendsWhatTheLibrarySent(t *testing.T) {
	rec := newRecorder(t, `{"ok":true,"result":{"message_id":7,"date":1,"chat":{"id":-100,"type":"supergroup"},"text":"x"}}`)
	tel := newTelegram(t, rec.URL)
	ctx := context.Background()
	markup := keyboard([]Button{{Text: "Да <ok>", Data: "y:1"}, {Text: "Site", URL: "https://example.com/?a=1&b=2", Below: true}})
	calls := []struct {
		method  string
		params  any
		library func() error
	}{
		{"sendMessage", &tg.SendMessageParams{ChatID: int64(-100), MessageThreadID: 4217, Text: "<b>Привет</b> & \"мир\"", ParseMode: models.ParseModeHTML,
			ReplyParameters: &models.ReplyParameters{MessageID: 12, AllowSendingWithoutReply: true}, ReplyMarkup: markup}, nil},
		{"sendMessage", &tg.SendMessageParams{ChatID: int64(42), Text: "plain"}, nil},
		{"editMessageText", &tg.EditMessageTextParams{ChatID: int64(42), MessageID: 9, Text: "<i>x</i>", ParseMode: models.ParseModeHTML, ReplyMarkup: markup}, nil},
		{"editMessageReplyMarkup", &tg.EditMessageReplyMarkupParams{ChatID: int64(42), MessageID: 9}, nil},
		{"editMessageReplyMarkup", &tg.EditMessageReplyMarkupParams{ChatID: int64(42), MessageID: 9, ReplyMarkup: markup}, nil},
		{"sendChatAction", &tg.SendChatActionParams{ChatID: int64(-100), MessageThreadID: 3, Action: models.ChatActionTyping}, nil},
	}
	for i, c := range calls {
		var err error
		switch p := c.params.(type) {
		case *tg.SendMessageParams:
			_, err = tel.api.SendMessage(ctx, p)
		case *tg.EditMessageTextParams:
			_, err = tel.api.EditMessageText(ctx, p)
		case *tg.EditMessageReplyMarkupParams:
			_, err = tel.api.EditMessageReplyMarkup(ctx, p)
		case *tg.SendChatActionParams:
			tel.api.SendChatAction(ctx, p) // fails to read a message as its bool, once sent
		}
		if err != nil {
			t.Fatalf("call %d by the library: %v", i, err)
		}
		want := rec.last()
		var m sent
		if err := tel.post(ctx, c.method, c.params, &m); err != nil || m.ID != 7 {
			t.Fatalf("call %d: post = %v, id %d", i, err, m.ID)
		}
		if got := rec.last(); !reflect.DeepEqual(got, want) {
			t.Errorf("call %d: post sent %v\nthe library sent %v", i, got, want)
		}
	}
}

// post fails as the library does, error for error, on every answer.
func TestPostFailsAsTheLibrary(t *testing.T) {
	answers := []string{
		`{"ok":false,"error_code":400,"description":"Bad Request: message is not modified"}`,
		`{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded","parameters":{"migrate_to_chat_id":-1001}}`,
		`{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`,
		`{"ok":false,"error_code":401,"description":"Unauthorized"}`,
		`{"ok":false,"error_code":404,"description":"Not Found"}`,
		`{"ok":false,"error_code":409,"description":"Conflict"}`,
		`{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`,
		`{"ok":false,"error_code":502,"description":"Bad Gateway"}`,
		`{"ok":false,"error_code":420,"description":"FLOOD"}`,
		`<html>502 Bad Gateway</html>`,
		`{"ok":true,"result":"not a message"}`,
	}
	ctx := context.Background()
	for _, a := range answers {
		rec := newRecorder(t, a)
		tel := newTelegram(t, rec.URL)
		params := &tg.SendMessageParams{ChatID: int64(42), Text: "hi"}
		_, want := tel.api.SendMessage(ctx, params)
		got := tel.post(ctx, "sendMessage", params, &models.Message{})
		if want == nil || got == nil || got.Error() != want.Error() || Outcome(got) != Outcome(want) {
			t.Errorf("answer %s:\npost    %v\nlibrary %v", a, got, want)
		}
		gotOut, gotWait := classify(got, 1)
		wantOut, wantWait := classify(want, 1)
		if gotOut != wantOut || gotWait != wantWait {
			t.Errorf("answer %s: classified %v, %v; the library's %v, %v", a, gotOut, gotWait, wantOut, wantWait)
		}
	}
	tel := newTelegram(t, "http://127.0.0.1:1") // nobody listens
	params := &tg.SendMessageParams{ChatID: int64(42), Text: "hi"}
	_, want := tel.api.SendMessage(ctx, params)
	got := tel.post(ctx, "sendMessage", params, nil)
	gotOut, _ := classify(got, 1)
	wantOut, _ := classify(want, 1)
	if got == nil || got.Error() != want.Error() || gotOut != wantOut || strings.Contains(got.Error(), "123:abc") {
		t.Errorf("no server:\npost    %v\nlibrary %v", got, want)
	}
}

// BenchmarkPost is BenchmarkSendMessage's call made by post.
func BenchmarkPost(b *testing.B) {
	s := newBotAPI(b)
	var w writeCounter
	tel := newTelegram(b, s.URL)
	tel.calls = w.client()
	params := &tg.SendMessageParams{ChatID: int64(42), Text: strings.Repeat("Привет, <b>мир</b>! ", 40), ParseMode: "HTML"}
	ctx := context.Background()
	send := func() {
		var m sent
		if err := tel.post(ctx, "sendMessage", params, &m); err != nil || m.ID != 7 {
			b.Fatalf("post = %v, %d", err, m.ID)
		}
	}
	send() // dials
	w.writes.Store(0)
	b.ReportAllocs()
	for b.Loop() {
		send()
	}
	b.ReportMetric(float64(w.writes.Load())/float64(b.N), "writes/op")
}

// BenchmarkCallsAtOnce: sixteen calls in flight at once, as a busy bot
// has, with the default's 2 idle connections kept and with ryo's.
func BenchmarkCallsAtOnce(b *testing.B) {
	for _, idle := range []int{2, idleCalls} {
		b.Run(fmt.Sprintf("idle=%d", idle), func(b *testing.B) {
			s := newBotAPI(b)
			tel := newTelegram(b, s.URL)
			transport := callTransport().(*http.Transport)
			transport.MaxIdleConnsPerHost = idle
			var dials atomic.Int64
			var d net.Dialer
			transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return d.DialContext(ctx, network, addr)
			}
			tel.calls = &http.Client{Transport: transport}
			params := &tg.SendMessageParams{ChatID: int64(42), Text: "hi"}
			b.SetParallelism(8)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					var m sent
					if err := tel.post(context.Background(), "sendMessage", params, &m); err != nil {
						b.Error(err)
					}
				}
			})
			b.ReportMetric(float64(dials.Load())/float64(b.N), "dials/op")
			transport.CloseIdleConnections()
		})
	}
}
