package openaitest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Request is one accepted chat request, as received.
type Request struct {
	Model         string
	Messages      []Message
	Stream        bool
	IncludeUsage  bool            // stream_options.include_usage
	Format        *ResponseFormat // response_format; nil when absent
	Temperature   *float64
	MaxTokens     *int
	Seed          *int
	Authorization string // the header as sent
	Body          []byte // the whole body, as sent
}

// Message is one message. A message sent with parts has its texts joined
// in Content and its pictures in Images, as the data: URLs sent.
type Message struct {
	Role    string
	Content string
	Images  []string
	Parts   bool // the content was an array of parts
}

// ResponseFormat is response_format as sent.
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is response_format.json_schema as sent.
type JSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict,omitempty"`
}

// body is the request as the fake reads it: the fields OpenAI takes that
// ryo may send. Any other is refused, as OpenAI refuses it.
type body struct {
	Model               *string          `json:"model"`
	Messages            []wireMessage    `json:"messages"`
	Stream              *bool            `json:"stream"`
	StreamOptions       *json.RawMessage `json:"stream_options"`
	ResponseFormat      *json.RawMessage `json:"response_format"`
	Temperature         *float64         `json:"temperature"`
	TopP                *float64         `json:"top_p"`
	MaxTokens           *int             `json:"max_tokens"`
	MaxCompletionTokens *int             `json:"max_completion_tokens"`
	Seed                *int             `json:"seed"`
	Stop                json.RawMessage  `json:"stop"`
	User                *string          `json:"user"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name,omitempty"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL    string `json:"url"`
		Detail string `json:"detail,omitempty"`
	} `json:"image_url"`
}

// badRequest is a request refused with 400 and OpenAI's words.
type badRequest struct {
	status int
	msg    string
}

func bad(format string, args ...any) *badRequest {
	return &badRequest{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// strictDecode decodes raw into v, refusing fields v lacks.
func strictDecode(raw []byte, v any, where string) *badRequest {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if where == "" {
				return bad("Unrecognized request argument supplied: %s", strings.Trim(f, `"`))
			}
			return bad("Invalid parameter: '%s' has an unknown field %s.", where, f)
		}
		return bad("We could not parse the JSON body of your request. (%v)", err)
	}
	return nil
}

// parse reads and checks a chat request as OpenAI's API does.
func parse(raw []byte) (Request, *badRequest) {
	var b body
	if e := strictDecode(raw, &b, ""); e != nil {
		return Request{}, e
	}
	req := Request{Body: raw, Stream: b.Stream != nil && *b.Stream, Temperature: b.Temperature, MaxTokens: b.MaxTokens, Seed: b.Seed}
	switch {
	case b.Model == nil || *b.Model == "":
		return req, bad("you must provide a model parameter")
	case len(b.Messages) == 0:
		return req, bad("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	case b.Temperature != nil && (*b.Temperature < 0 || *b.Temperature > 2):
		return req, bad("Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got %v instead.", *b.Temperature)
	case b.MaxTokens != nil && *b.MaxTokens < 1:
		return req, bad("Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got %d instead.", *b.MaxTokens)
	case b.MaxTokens != nil && b.MaxCompletionTokens != nil:
		return req, bad("max_tokens and max_completion_tokens cannot both be set")
	case b.StreamOptions != nil && !req.Stream:
		return req, bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
	}
	req.Model = *b.Model
	if b.StreamOptions != nil {
		var so struct {
			IncludeUsage bool `json:"include_usage"`
		}
		if e := strictDecode(*b.StreamOptions, &so, "stream_options"); e != nil {
			return req, e
		}
		req.IncludeUsage = so.IncludeUsage
	}
	for i, m := range b.Messages {
		msg, e := parseMessage(i, m)
		if e != nil {
			return req, e
		}
		req.Messages = append(req.Messages, msg)
	}
	if b.ResponseFormat != nil {
		f, e := parseFormat(*b.ResponseFormat)
		if e != nil {
			return req, e
		}
		req.Format = f
	}
	return req, nil
}

var roles = []string{"system", "developer", "user", "assistant", "tool"}

func parseMessage(i int, m wireMessage) (Message, *badRequest) {
	if !slices.Contains(roles, m.Role) {
		return Message{}, bad("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'. (messages[%d].role)", m.Role, i)
	}
	out := Message{Role: m.Role}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		out.Content = s
		return out, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return out, bad("Invalid type for 'messages[%d].content': expected one of a string or array of objects.", i)
	}
	out.Parts = true
	var texts []string
	for j, raw := range parts {
		var p wirePart
		if e := strictDecode(raw, &p, fmt.Sprintf("messages[%d].content[%d]", i, j)); e != nil {
			return out, e
		}
		switch {
		case p.Type == "text":
			texts = append(texts, p.Text)
		case p.Type == "image_url" && m.Role == "user" && p.ImageURL != nil:
			if e := checkImageURL(p.ImageURL.URL, i, j); e != nil {
				return out, e
			}
			out.Images = append(out.Images, p.ImageURL.URL)
		case p.Type == "image_url" && m.Role != "user":
			return out, bad("Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL. (messages[%d].content[%d])", m.Role, i, j)
		default:
			return out, bad("Invalid value: '%s'. Supported values are: 'text' and 'image_url'. (messages[%d].content[%d].type)", p.Type, i, j)
		}
	}
	out.Content = strings.Join(texts, "\n")
	return out, nil
}

// checkImageURL takes a data: URL of a picture, base64, or an http(s) URL.
func checkImageURL(u string, i, j int) *badRequest {
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return nil
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok || !strings.HasPrefix(u, "data:image/") || !strings.HasSuffix(meta, ";base64") {
		return bad("Invalid 'messages[%d].content[%d].image_url.url': expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...'), but got an unsupported MIME type or format.", i, j)
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return bad("Invalid image data in messages[%d].content[%d]: not base64.", i, j)
	}
	return nil
}

var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// parseFormat checks response_format as OpenAI does: a known type, a
// named schema, no unknown fields, and a strict schema that strict mode
// can hold the model to.
func parseFormat(raw []byte) (*ResponseFormat, *badRequest) {
	var f ResponseFormat
	if e := strictDecode(raw, &f, "response_format"); e != nil {
		return nil, e
	}
	switch f.Type {
	case "text", "json_object":
		if f.JSONSchema != nil {
			return nil, bad("Invalid parameter: 'response_format' of type '%s' does not take 'json_schema'.", f.Type)
		}
		return &f, nil
	case "json_schema":
	default:
		return nil, bad("Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'. (response_format.type)", f.Type)
	}
	s := f.JSONSchema
	switch {
	case s == nil:
		return nil, bad("Missing required parameter: 'response_format.json_schema'.")
	case !schemaName.MatchString(s.Name):
		return nil, bad("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.")
	case len(s.Schema) == 0 || s.Schema[0] != '{':
		return nil, bad("Invalid 'response_format.json_schema.schema': expected an object.")
	}
	if s.Strict != nil && *s.Strict {
		if problem := strictProblem(s.Schema, "()"); problem != "" {
			return nil, bad("Invalid schema for response_format '%s': In context=%s, %s", s.Name, "()", problem)
		}
	}
	return &f, nil
}

// strictProblem is why strict mode cannot take schema, "" when it can:
// every object must forbid other properties and require all its own.
func strictProblem(schema json.RawMessage, at string) string {
	var node map[string]json.RawMessage
	if json.Unmarshal(schema, &node) != nil {
		return ""
	}
	if isObject(node) {
		if string(node["additionalProperties"]) != "false" {
			return "'additionalProperties' is required to be supplied and to be false."
		}
		var props map[string]json.RawMessage
		_ = json.Unmarshal(node["properties"], &props)
		var required []string
		_ = json.Unmarshal(node["required"], &required)
		var missing []string
		for k := range props {
			if !slices.Contains(required, k) {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			return "'required' is required to be supplied and to be an array including every key in properties. Missing '" + missing[0] + "'."
		}
		for _, k := range sortedKeys(props) {
			if p := strictProblem(props[k], at+", "+k); p != "" {
				return p
			}
		}
	}
	for _, key := range []string{"anyOf", "items"} {
		var list []json.RawMessage
		if json.Unmarshal(node[key], &list) != nil {
			list = []json.RawMessage{node[key]}
		}
		for _, sub := range list {
			if p := strictProblem(sub, at); p != "" {
				return p
			}
		}
	}
	return ""
}

func isObject(node map[string]json.RawMessage) bool {
	var t string
	if json.Unmarshal(node["type"], &t) == nil {
		return t == "object"
	}
	var ts []string
	return json.Unmarshal(node["type"], &ts) == nil && slices.Contains(ts, "object")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
