package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color/palette"
	"image/gif"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/imagetest"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
)

const imageKey = "sk-local-0123456789abcdef"

// imageBus is a tool bus with generate_image asking base, and what it logs.
func imageBus(t *testing.T, base string, mod func(*tools.ImageConfig)) (*toolbus.Registry, *bytes.Buffer) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	cfg := tools.ImageConfig{URL: u, Model: "sdxl-turbo", APIKey: imageKey, Timeout: 5 * time.Second,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if mod != nil {
		mod(&cfg)
	}
	r := toolbus.NewRegistry()
	if err := r.Register(tools.GenerateImage(cfg)); err != nil {
		t.Fatal(err)
	}
	return r, &logs
}

func paint(r *toolbus.Registry, args string) toolbus.Result {
	return r.Run(context.Background(), toolbus.Call{ID: "c1", Key: fmt.Sprint(time.Now().UnixNano()), Tool: "generate_image", Args: json.RawMessage(args)})
}

// A picture is asked of the generator as OpenAI's API has it, and arrives
// as a photo for the person; the model reads what was made, not the bytes.
func TestGenerateImage(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   imagetest.Options
		format string
		file   string
	}{
		{"inline png", imagetest.Options{Key: imageKey}, "png", "picture.png"},
		{"jpeg by address", imagetest.Options{Key: imageKey, ByURL: true, Format: "jpeg"}, "jpeg", "picture.jpg"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gen := imagetest.NewServer(tt.opts)
			defer gen.Close()
			r, logs := imageBus(t, gen.URL(), nil)
			res := paint(r, `{"prompt":"a lighthouse at dusk, oil painting","shape":"landscape"}`)
			if res.Status != toolbus.StatusOK || len(res.Attachments) != 1 {
				t.Fatalf("Run = %+v; logs %s", res, logs)
			}
			reqs := gen.Requests()
			if len(reqs) != 1 || reqs[0].Size != "1792x1024" || reqs[0].N != 1 || reqs[0].ResponseFormat != "b64_json" ||
				reqs[0].Model != "sdxl-turbo" || reqs[0].Prompt != "a lighthouse at dusk, oil painting" || reqs[0].Authorization != "Bearer "+imageKey {
				t.Fatalf("the generator was asked %+v", reqs)
			}
			f := res.Attachments[0]
			cfg, format, err := image.DecodeConfig(bytes.NewReader(f.Data))
			if err != nil || format != tt.format || cfg.Width != 112 || cfg.Height != 64 {
				t.Fatalf("the picture decodes as %s %dx%d, %v", format, cfg.Width, cfg.Height, err)
			}
			if f.Name != tt.file || f.MimeType != "image/"+tt.format || f.Caption != "🎨 a lighthouse at dusk, oil painting" || !f.IsPicture() {
				t.Fatalf("attachment = %s %s %q", f.Name, f.MimeType, f.Caption)
			}
			text := res.Text()
			if len(text) > 600 || strings.Contains(text, base64.StdEncoding.EncodeToString(f.Data[:24])) ||
				!strings.Contains(text, `"width":112`) || !strings.Contains(text, `"revised_prompt":"A picture of a lighthouse`) {
				t.Fatalf("the model reads %q", text)
			}
		})
	}
}

// Shapes map to the sizes the API names; a prompt of spaces is refused
// before anything is asked.
func TestGenerateImageShapes(t *testing.T) {
	gen := imagetest.NewServer(imagetest.Options{})
	defer gen.Close()
	r, _ := imageBus(t, gen.URL(), func(c *tools.ImageConfig) { c.APIKey, c.Model = "", "" })
	for _, tt := range []struct{ args, size string }{
		{`{"prompt":"a cat"}`, "1024x1024"},
		{`{"prompt":"a cat","shape":"portrait"}`, "1024x1792"},
	} {
		if res := paint(r, tt.args); res.Status != toolbus.StatusOK {
			t.Fatalf("Run(%s) = %+v", tt.args, res)
		}
		if last := gen.Requests()[len(gen.Requests())-1]; last.Size != tt.size || last.Model != "" || last.Authorization != "" {
			t.Fatalf("Run(%s) asked %+v", tt.args, last)
		}
	}
	n := len(gen.Requests())
	for _, args := range []string{`{"prompt":"   "}`, `{"prompt":"a cat","shape":"round"}`, `{"prompt":"` + strings.Repeat("é", 1001) + `"}`} {
		if res := paint(r, args); res.Status != toolbus.StatusError || res.Error.Code != toolbus.CodeInvalidArgs {
			t.Errorf("Run(%.40s…) = %+v; want invalid arguments", args, res)
		}
	}
	if len(gen.Requests()) != n {
		t.Fatal("a refused prompt reached the generator")
	}
}

// Every way the generator fails is a clear error the model can tell the
// person about, and a log line; the key is never in either.
func TestGenerateImageFailures(t *testing.T) {
	gen := imagetest.NewServer(imagetest.Options{Key: imageKey})
	defer gen.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("case") {
		case "text":
			fmt.Fprintf(w, `{"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString([]byte("not a picture at all")))
		case "nobase64":
			fmt.Fprint(w, `{"data":[{"b64_json":"%%%not base64"}]}`)
		case "empty":
			fmt.Fprint(w, `{"created":1,"data":[]}`)
		case "huge":
			fmt.Fprint(w, `{"data":[{"b64_json":"`)
			chunk := strings.Repeat("A", 1<<20)
			for range 15 {
				fmt.Fprint(w, chunk)
			}
			fmt.Fprint(w, `"}]}`)
		case "badurl":
			fmt.Fprint(w, `{"data":[{"url":"file:///etc/passwd"}]}`)
		case "thin":
			fmt.Fprintf(w, `{"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString(pngHeader(20000, 1)))
		case "gif": // an animation, which ryo's binary can read: image/gif is linked in
			var g gif.GIF
			for range 3 {
				g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, 64, 64), palette.Plan9))
				g.Delay = append(g.Delay, 10)
			}
			var b bytes.Buffer
			if err := gif.EncodeAll(&b, &g); err != nil {
				t.Error(err)
			}
			fmt.Fprintf(w, `{"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString(b.Bytes()))
		case "bomb":
			fmt.Fprintf(w, `{"data":[{"b64_json":%q}]}`, base64.StdEncoding.EncodeToString(pngHeader(60000, 60000)))
		}
	}))
	defer garbage.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	for _, tt := range []struct {
		name, base string
		fail       *imagetest.Failure
		key        string
		code, says string
	}{
		{"refused prompt", gen.URL(), &imagetest.Failure{Status: 400, Message: "Your request was rejected by the safety system."}, imageKey,
			"generator_refused", "rejected by the safety system"},
		{"wrong key", gen.URL(), nil, "sk-wrong", "generator_unavailable", "RYO_IMAGE_API_KEY"},
		{"server error, not JSON", gen.URL(), &imagetest.Failure{Status: 502}, imageKey, "generator_failed", "HTTP 502"},
		{"down", downURL + "/v1", nil, imageKey, "generator_unavailable", "connection refused"},
		{"not a picture", garbage.URL + "/v1/images/generations?case=text", nil, imageKey, "generator_failed", "not a picture"},
		{"not base64", garbage.URL + "/v1/images/generations?case=nobase64", nil, imageKey, "generator_failed", "not valid base64"},
		{"no picture", garbage.URL + "/v1/images/generations?case=empty", nil, imageKey, "generator_failed", "without a picture"},
		{"too large", garbage.URL + "/v1/images/generations?case=huge", nil, imageKey, "generator_failed", "larger than Telegram takes"},
		{"address not http", garbage.URL + "/v1/images/generations?case=badurl", nil, imageKey, "generator_failed", "without a picture"},
		{"an animated GIF", garbage.URL + "/v1/images/generations?case=gif", nil, imageKey, "generator_failed", "a GIF"},
		{"a 20000×1 line", garbage.URL + "/v1/images/generations?case=thin", nil, imageKey, "generator_failed", "20000×1 pixels"},
		{"a bomb: 60000×60000 pixels in 33 bytes", garbage.URL + "/v1/images/generations?case=bomb", nil, imageKey, "generator_failed", "60000×60000 pixels"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fail != nil {
				gen.FailNext(*tt.fail)
			}
			r, logs := imageBus(t, tt.base, func(c *tools.ImageConfig) { c.APIKey = ryo.Secret(tt.key) })
			res := paint(r, `{"prompt":"a lighthouse"}`)
			if res.Status != toolbus.StatusError || res.Error.Code != tt.code || !strings.Contains(res.Error.Message, tt.says) {
				t.Fatalf("Run = %+v; want %s saying %q", res.Error, tt.code, tt.says)
			}
			if len(res.Attachments) != 0 {
				t.Fatal("a failed call carries files")
			}
			if !strings.Contains(logs.String(), "image generator") {
				t.Errorf("no log line: %q", logs)
			}
			for _, where := range []string{res.Text(), logs.String()} {
				if strings.Contains(where, tt.key) {
					t.Fatalf("the key leaked: %s", where)
				}
			}
		})
	}
}

// A generator slower than the tool's time is cut off, which the model is
// told; nothing is left waiting, and the generator — likely still painting
// the first — is not asked for the picture a second time.
func TestGenerateImageTimeout(t *testing.T) {
	gen := imagetest.NewServer(imagetest.Options{})
	defer gen.Close()
	release := gen.Hold()
	defer release()
	r, _ := imageBus(t, gen.URL(), func(c *tools.ImageConfig) { c.Timeout = 50 * time.Millisecond })
	res := paint(r, `{"prompt":"a slow cat"}`)
	if res.Status != toolbus.StatusError || res.Error.Code != toolbus.CodeTimeout || !strings.Contains(res.Error.Message, "50ms") {
		t.Fatalf("Run = %+v; want a timeout after 50ms", res)
	}
	if n := len(gen.Requests()); n != 1 || res.Attempts != 1 {
		t.Fatalf("the generator was asked %d times in %d attempts; want once", n, res.Attempts)
	}
}

// pngHeader is only the header of a PNG w×h pixels: what a picture's size
// is read from.
func pngHeader(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	chunk := append([]byte("IHDR"), append(ihdr, 8, 6, 0, 0, 0)...)
	out := append([]byte("\x89PNG\r\n\x1a\n"), binary.BigEndian.AppendUint32(nil, 13)...)
	return binary.BigEndian.AppendUint32(append(out, chunk...), crc32.ChecksumIEEE(chunk))
}
