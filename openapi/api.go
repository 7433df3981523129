package openapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/toolbus"
)

// API is one service described by an OpenAPI document: what the
// configuration says about it.
type API struct {
	// Name names the API: the tools are called <name>_<operation> and the
	// catalog shows them under it as a category. It is made snake_case.
	Name string
	// Document is the OpenAPI 3.0, 3.1 or Swagger 2.0 document, in JSON
	// or YAML. Only references inside it are followed.
	Document []byte
	// DocumentURL is where the document was fetched from, if anywhere:
	// servers given as relative URLs ("/api/v3") are read against it.
	DocumentURL string
	// BaseURL, when set, replaces the document's top-level servers. The
	// servers a path or an operation names itself are kept when they are
	// absolute, and read against BaseURL when they are relative.
	BaseURL string
	// Auth is sent with every request, in a header or in the query.
	Auth Auth
	// Allow, when not empty, keeps only the operations it names; Deny
	// leaves out those it names. An operation is named by its
	// operationId, its tool name (with or without the API's prefix) or
	// "METHOD /path" ("GET /pets/{petId}").
	Allow, Deny []string
	// Overrides change what the document says about an operation, named
	// as in Allow.
	Overrides map[string]Override
	// Client makes the requests; nil means a client of its own. Its
	// redirect policy is replaced by one that stays on the same host.
	Client *http.Client
}

// Auth is a credential sent with every request. Its value is never part
// of a tool's schema, result or error.
type Auth struct {
	In    string // "header" or "query"; "" for none
	Name  string // header or query parameter name, such as "Authorization" or "apikey"
	Value ryo.Secret
}

// Where an Auth goes.
const (
	InHeader = "header"
	InQuery  = "query"
)

// Override replaces what the document says about one operation.
type Override struct {
	Description string          // replaces the generated description
	Effect      *toolbus.Effect // replaces the effect of the method
	Timeout     time.Duration   // replaces DefaultTimeout
	Example     json.RawMessage // replaces the generated example's arguments
	Question    string          // replaces the generated example's question
}

// Defaults.
const (
	// DefaultTimeout bounds one request, connection to last byte.
	DefaultTimeout = 10 * time.Second
	// MaxResponse is how much of an answer is read; the rest is cut.
	MaxResponse = 64 << 10
	// MaxResult is the most bytes of JSON a tool returns to the model:
	// a longer answer is cut to whole items within it, and marked.
	MaxResult = toolbus.DefaultMaxResult
	// MaxDocument is the largest document Generate reads.
	MaxDocument = 8 << 20
)

// Catalog is what Generate made of a document: the tools, in the order of
// the document's paths, and the operations it left out, with why.
type Catalog struct {
	API     string // the API's name, snake_case
	Tools   []Generated
	Skipped []Skipped
}

// Generated is one tool and the operation it calls.
type Generated struct {
	Operation   string // "GET /pets/{petId}"
	OperationID string // as the document gives it; "" when it gives none
	Spec        toolbus.Spec
}

// Skipped is an operation, or one argument of it, that Generate left out.
type Skipped struct {
	Operation string // "GET /pets/{petId}"
	Name      string // the tool name it has or would have had
	Argument  string // the argument left out; "" when the whole operation was
	Reason    string
}

// Specs returns the tools' specs, ready to register.
func (c Catalog) Specs() []toolbus.Spec {
	specs := make([]toolbus.Spec, len(c.Tools))
	for i, t := range c.Tools {
		specs[i] = t.Spec
	}
	return specs
}
