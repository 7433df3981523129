package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	_ "image/jpeg" // the generators' other format
	_ "image/png"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	_ "golang.org/x/image/webp" // some generators answer in WebP

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// ImageConfig says where generate_image asks for pictures: a self-hosted
// generator that speaks OpenAI's images API.
type ImageConfig struct {
	// URL is the API's base, such as http://127.0.0.1:7860/v1: pictures
	// are asked of URL/images/generations (URL itself when it ends so).
	URL     *url.URL
	Model   string        // "" leaves the generator's own default
	APIKey  ryo.Secret    // sent as a bearer token; "" sends none
	Timeout time.Duration // one picture, from asking to the last byte; 2 minutes when zero
	Client  *http.Client  // a client without a timeout of its own when nil
	Log     *slog.Logger  // told when the generator fails; nowhere when nil
}

// Bounds of a picture and of what is asked for one.
const (
	maxImagePrompt  = 1000                              // characters
	maxImageReply   = ryo.MaxAttachmentBytes*4/3 + 4096 // a picture at Telegram's photo limit, base64-encoded, with its JSON
	maxImageCaption = 200                               // characters of the prompt shown under the picture
)

// imageGrace is how much longer than its own deadline the bus gives the
// tool: the tool reports its deadline itself, as a result the bus does not
// retry — a generator that ran out of time is likely still painting, and
// asking again would double the wait and its work.
const imageGrace = 5 * time.Second

// errTooSlow ends a request to the generator at the tool's deadline.
var errTooSlow = errors.New("the image generator took too long")

// imageSizes are the shapes the model may ask for, as OpenAI's images API
// names their sizes; generators that copy the API take them too.
var imageSizes = map[string]string{"square": "1024x1024", "portrait": "1024x1792", "landscape": "1792x1024"}

const imageSchema = `{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "What the picture shows, in detail: subject, style, colours, light. Up to 1,000 characters."},
    "shape": {"type": "string", "enum": ["square", "portrait", "landscape"], "description": "The picture's shape; square if left out."}
  },
  "required": ["prompt"],
  "additionalProperties": false
}`

// GenerateImage is the generate_image tool: it asks the generator of cfg
// for one picture, which the person receives as a photo with the answer.
// The model is told what was made, never the picture's bytes.
func GenerateImage(cfg ImageConfig) toolbus.Spec {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	g := generator{cfg: cfg, endpoint: imagesEndpoint(cfg.URL)}
	return toolbus.Spec{
		Name:        "generate_image",
		Description: "Draw a new picture from a description with the image generator; the person gets it as a photo. Not for charts of data: use create_chart.",
		Category:    toolbus.Images,
		Examples: []toolbus.Example{
			example("Paint me a red fox sleeping in the snow, watercolour.", `{"prompt":"a red fox curled up asleep in fresh snow, soft watercolour, muted winter light"}`),
			example("Make a wide banner of a mountain lake at sunrise.", `{"prompt":"a calm mountain lake at sunrise, mist over the water, pine forest, photorealistic","shape":"landscape"}`),
		},
		Schema:  json.RawMessage(imageSchema),
		Effect:  toolbus.ReadOnly,
		Timeout: cfg.Timeout + imageGrace,
		Doing:   "🎨 painting a picture",
		Tool:    toolbus.ToolFunc(g.call),
	}
}

// imagesEndpoint is where pictures are asked for, from the API's base.
func imagesEndpoint(base *url.URL) string {
	if base == nil {
		return ""
	}
	u := *base
	if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/images/generations") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/images/generations"
	}
	return u.String()
}

type generator struct {
	cfg      ImageConfig
	endpoint string
}

// imageAnswer is what OpenAI's images API answers, or its error.
type imageAnswer struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (g generator) call(ctx context.Context, raw json.RawMessage) (any, error) {
	var args struct {
		Prompt string `json:"prompt"`
		Shape  string `json:"shape"`
	}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	prompt := strings.TrimSpace(args.Prompt)
	if prompt == "" || len([]rune(prompt)) > maxImagePrompt {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "the prompt must say what to draw, in 1 to %d characters", maxImagePrompt)
	}
	shape := args.Shape
	if shape == "" {
		shape = "square"
	}
	size, ok := imageSizes[shape]
	if !ok {
		return nil, toolbus.Errorf(toolbus.CodeInvalidArgs, "shape %q: use square, portrait or landscape", shape)
	}
	body := map[string]any{"prompt": prompt, "n": 1, "size": size, "response_format": "b64_json"}
	if g.cfg.Model != "" {
		body["model"] = g.cfg.Model
	}
	started := time.Now()
	ctx, cancel := context.WithTimeoutCause(ctx, g.cfg.Timeout, errTooSlow)
	defer cancel()
	answer, err := g.ask(ctx, body)
	if err != nil {
		g.cfg.Log.WarnContext(ctx, "the image generator failed", "host", g.cfg.URL.Host, "err", err, "took", time.Since(started))
		return nil, err
	}
	data, err := g.picture(ctx, answer)
	if err != nil {
		g.cfg.Log.WarnContext(ctx, "the image generator's answer holds no picture that can be sent", "host", g.cfg.URL.Host, "err", err)
		return nil, err
	}
	conf, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		g.cfg.Log.WarnContext(ctx, "the image generator's picture cannot be read", "host", g.cfg.URL.Host, "err", err, "bytes", len(data))
		return nil, toolbus.Errorf("generator_failed", "the image generator sent something that is not a picture; tell the person it did not work and they may try again")
	}
	if format != "png" && format != "jpeg" && format != "webp" { // such as a GIF: any decoder linked in reads its size
		g.cfg.Log.WarnContext(ctx, "the image generator's picture is in a format Telegram does not show as a photo", "host", g.cfg.URL.Host, "format", format)
		return nil, toolbus.Errorf("generator_failed", "the image generator sent a %s, not a PNG, JPEG or WebP picture; tell the person it did not work", strings.ToUpper(format))
	}
	if !ryo.PhotoFits(conf.Width, conf.Height) { // a broken generator, or a picture meant to eat a phone's memory
		g.cfg.Log.WarnContext(ctx, "the image generator's picture has sides Telegram does not take", "host", g.cfg.URL.Host, "width", conf.Width, "height", conf.Height)
		return nil, toolbus.Errorf("generator_failed", "the image generator made a picture of %d×%d pixels, which Telegram cannot show; tell the person it did not work", conf.Width, conf.Height)
	}
	file := ryo.Attachment{Name: "picture." + format, MimeType: "image/" + format, Caption: "🎨 " + clipRunes(prompt, maxImageCaption), Data: data}
	if format == "jpeg" {
		file.Name = "picture.jpg"
	}
	if err := file.Check(); err != nil {
		return nil, toolbus.Errorf("generator_failed", "the picture cannot be sent to Telegram (%v); try a smaller shape", err)
	}
	result := map[string]any{
		"made": true, "width": conf.Width, "height": conf.Height, "format": format, "shape": shape,
		"note": "the person receives the picture as a photo with your answer; say what it shows in a sentence, do not paste a link",
	}
	if r := answer.Data[0].RevisedPrompt; r != "" {
		result["revised_prompt"] = clipRunes(r, maxImagePrompt)
	}
	return toolbus.Attached{Result: result, Files: []ryo.Attachment{file}}, nil
}

// ask posts the request and reads the generator's answer.
func (g generator) ask(ctx context.Context, body map[string]any) (imageAnswer, error) {
	payload, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.endpoint, bytes.NewReader(payload))
	if err != nil {
		return imageAnswer{}, toolbus.Errorf("generator_unavailable", "the image generator's address is not usable; tell the person pictures cannot be made now")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if key := g.cfg.APIKey.Reveal(); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return imageAnswer{}, g.late(ctx)
		}
		return imageAnswer{}, toolbus.Errorf("generator_unavailable", "the image generator did not answer (%s); tell the person pictures cannot be made right now", ryo.TransportProblem(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxImageReply+1))
	if err != nil {
		if ctx.Err() != nil {
			return imageAnswer{}, g.late(ctx)
		}
		return imageAnswer{}, toolbus.Errorf("generator_unavailable", "the image generator's answer broke off; tell the person it did not work and they may try again")
	}
	if len(raw) > maxImageReply {
		return imageAnswer{}, toolbus.Errorf("generator_failed", "the image generator's picture is larger than Telegram takes; try a smaller shape")
	}
	var answer imageAnswer
	jsonErr := json.Unmarshal(raw, &answer)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return answer, toolbus.Errorf("generator_unavailable", "the image generator refused ryo's key (HTTP %d); tell the person pictures cannot be made until the owner fixes RYO_IMAGE_API_KEY", resp.StatusCode)
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		why := "no reason given"
		if answer.Error != nil && strings.TrimSpace(answer.Error.Message) != "" {
			why = clipRunes(strings.Join(strings.Fields(answer.Error.Message), " "), 300)
		}
		return answer, toolbus.Errorf("generator_refused", "the image generator refused this picture (HTTP %d: %s); change the prompt or tell the person why", resp.StatusCode, why)
	case resp.StatusCode >= 500:
		return answer, toolbus.Errorf("generator_failed", "the image generator failed (HTTP %d); tell the person it did not work and they may try again later", resp.StatusCode)
	case jsonErr != nil || len(answer.Data) == 0:
		return answer, toolbus.Errorf("generator_failed", "the image generator answered without a picture; tell the person it did not work")
	}
	return answer, nil
}

// picture is the bytes of the answer's first picture: sent inline, or
// fetched from the address the generator gave, within the same deadline.
func (g generator) picture(ctx context.Context, answer imageAnswer) ([]byte, error) {
	first := answer.Data[0]
	if first.B64JSON != "" {
		data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(first.B64JSON))
		if err != nil {
			return nil, toolbus.Errorf("generator_failed", "the image generator's picture is not valid base64; tell the person it did not work")
		}
		return data, nil
	}
	u, err := url.Parse(first.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return nil, toolbus.Errorf("generator_failed", "the image generator answered without a picture; tell the person it did not work")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	resp, err := g.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, g.late(ctx)
		}
		return nil, toolbus.Errorf("generator_unavailable", "the image generator's picture could not be fetched (%s)", ryo.TransportProblem(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, toolbus.Errorf("generator_failed", "the image generator's picture could not be fetched (HTTP %d)", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, ryo.MaxAttachmentBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, g.late(ctx)
		}
		return nil, toolbus.Errorf("generator_unavailable", "the image generator's picture broke off while it was fetched")
	}
	if len(data) > ryo.MaxAttachmentBytes {
		return nil, toolbus.Errorf("generator_failed", "the image generator's picture is larger than Telegram takes; try a smaller shape")
	}
	return data, nil
}

// late is why a request ended with ctx: the tool's deadline, told to the
// model, or the turn's end.
func (g generator) late(ctx context.Context) error {
	if errors.Is(context.Cause(ctx), errTooSlow) {
		return toolbus.Errorf(toolbus.CodeTimeout, "the image generator did not finish the picture within %v; it may still be busy with it, so tell the person and do not ask again right away", g.cfg.Timeout)
	}
	return ctx.Err()
}

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
