// Package openapi turns an OpenAPI document into ryo tools, and is the
// client those tools call the API with.
//
// Generate reads one API's document — OpenAPI 3.0 or 3.1, or Swagger 2.0
// converted to 3.0 — and makes a toolbus.Spec of every operation it can,
// filed under the API's name as the category. Each operation's path,
// query and header parameters and its body (JSON, a form or plain text,
// as one argument named "body") become one closed JSON Schema: every
// object sets additionalProperties false; required lists, enums, formats
// the validator checks, defaults, bounds and short descriptions are kept;
// local $refs are followed, a schema that refers to itself is cut where
// it does (an optional property is left out, a required one fails the
// operation), allOf is merged, and oneOf or anyOf become a list of types
// for scalars, null for a nullable alternative, or anyOf of closed
// objects in a body. maxItems never reaches the model's schema — Ollama's
// grammar breaks on it — so the client checks it before the call and the
// argument's description states it.
//
// Names are <api>_<operationId> in snake_case, or made from the method
// and path when there is no operationId (GET /v1/forecast → get_forecast),
// at most 64 characters, the same on every load; names that collide are
// told apart deterministically (see assignNames). Descriptions are the
// first sentence of the summary or description with HTML and Markdown
// stripped, at most 200 characters, starting with a verb (see describe).
//
// What cannot be made a tool is not an error: the operation is reported
// in the Catalog's Skipped with a reason — no verb to start the
// description with, a required cookie, a binary or multipart upload, a
// free-form object, a recursive required argument, a server URL that is
// not absolute — and so is each optional argument left out. Every spec
// Generate returns has passed toolbus.Registry's own checks.
//
// Effects follow the method: GET and HEAD read only, POST, PUT and PATCH
// change things, DELETE destroys; an Override changes the effect, the
// description, the example and the deadline of one operation.
//
// The client (call) builds the request from the validated arguments as
// the document says: path parameters escaped in their style (simple,
// label, matrix), query parameters in theirs (form, spaceDelimited,
// pipeDelimited, deepObject, exploded or not), header parameters, a JSON
// or form body; it sends the API's credential (Auth) in a header or the
// query, follows redirects only on the same host, and gives up at the
// operation's deadline (DefaultTimeout). It reads at most MaxResponse
// bytes; a result longer than MaxResult keeps the whole items that fit,
// marked as cut, so it stays valid JSON. A non-2xx answer becomes a
// *toolbus.Error coded http_<status> with the API's own message; an API
// that cannot be reached, unavailable. The credential never appears in a
// schema, a result or an error: the transport's errors, which quote the
// URL, are not passed on, and an answer that quotes the key has it
// redacted, in whatever escape it comes (see redact.go).
//
// The parser is github.com/getkin/kin-openapi: one document model for
// OpenAPI 3.0, 3.1 and 3.2, a converter from Swagger 2.0 into that same
// model, references to other files and URLs refused unless asked for,
// few dependencies (a YAML parser, a JSON pointer library and a JSON
// Schema validator), and steady releases. pb33f/libopenapi reads the same
// versions, but keeps Swagger 2.0 in a model of its own (two walkers
// instead of one) and pulls in its own YAML fork, JSONPath and ordered
// maps: a program loading one document was 17.7 MB against 12.1 MB, and
// took about 3 minutes to build from a cold cache here against 17 s.
//
// cmd/ryo reads the APIs from the file RYO_APIS names, fetches each
// document at start, calls Generate and registers Catalog.Specs; `ryo
// tools` prints the catalogs. Not here yet: keeping documents in sync
// while ryo runs and storing the last good catalog.
package openapi
