package memory

import (
	"strings"
	"testing"
)

// Whatever shape a secret comes in — a number, an array, JSON inside a
// string, a web address's query, a header written as text, a name with
// escapes — its value does not reach a stored trace; what only looks
// like a secret's name (a count of tokens, an author) stays.
func TestRedactSecrets(t *testing.T) {
	const secret = "s3cr3t-VALUE"
	for _, in := range []string{
		`{"api_key":"s3cr3t-VALUE"}`,
		`{"headers":{"X-API-KEY":"s3cr3t-VALUE"}}`,
		`{"Api-Key": "s3cr3t-VALUE"}`,
		`{"auth":{"password":"s3cr3t-VALUE"}}`,
		`{"client_secret":"a\"b s3cr3t-VALUE"}`,
		`{"Cookie":"sid=s3cr3t-VALUE"}`,
		`__tool_result__ fetch {"status":"ok","token":"s3cr3t-VALUE"}`,
		`{"api_key":98765432109876}`,
		`{"token":["s3cr3t-VALUE","other"]}`,
		`{"credentials":{"user":"ann","pass":"s3cr3t-VALUE"}}`,
		`{"body":"{\"access_token\":\"s3cr3t-VALUE\",\"expires\":3600}"}`,
		`{"url":"https://api.example/v1/find?q=tea&api_key=s3cr3t-VALUE&n=1"}`,
		`GET /v1?apikey=s3cr3t-VALUE HTTP/1.1`,
		`{"echo":"Authorization: Bearer s3cr3t-VALUE"}`,
		`Authorization: Basic s3cr3t-VALUE`,
		`{"headers":"x-api-key: s3cr3t-VALUE"}`,
		`{"\u0074oken":"s3cr3t-VALUE"}`,
		`{"private_key":"s3cr3t-VALUE","passphrase":"s3cr3t-VALUE","access_key":"s3cr3t-VALUE"}`,
		`{"session_id":"s3cr3t-VALUE"}`,
	} {
		out := redactSecrets(in)
		if strings.Contains(out, secret) || strings.Contains(out, "98765432109876") {
			t.Errorf("redactSecrets(%s) = %s", in, out)
		}
	}
	for _, kept := range []string{
		`{"max_tokens":500,"prompt_tokens":12}`,
		`{"author":"Jane Austen","expression":"6*7"}`,
		`{"q":"how do tokens work","note":"the password is a word"}`,
		`Basic arithmetic: 6*7 = 42`,
	} {
		if out := redactSecrets(kept); out != kept {
			t.Errorf("redactSecrets(%s) = %s; want it kept", kept, out)
		}
	}
}

// A step's error is redacted as its arguments and result are.
func TestBoundTraceRedactsErrors(t *testing.T) {
	tr := boundTrace(Trace{Steps: []TraceStep{{Kind: TraceTool, Tool: "fetch",
		Err: `401 from https://api.example/v1?api_key=s3cr3t-VALUE: {"token":"s3cr3t-VALUE"}`}}})
	if strings.Contains(tr.Steps[0].Err, "s3cr3t-VALUE") {
		t.Errorf("the error keeps the secret: %s", tr.Steps[0].Err)
	}
}

// A secret that goes on past what is kept of a long result is redacted,
// and the result's full size noted.
func TestBoundTraceRedactsACutSecret(t *testing.T) {
	result := strings.Repeat("x", MaxTraceField-100) + `,"token":"` + strings.Repeat("s3cr3t-VALUE", 1<<20) + `"}`
	tr := boundTrace(Trace{Steps: []TraceStep{{Kind: TraceTool, Tool: "fetch", Result: result}}})
	if s := tr.Steps[0]; strings.Contains(s.Result, "s3cr3t") || s.ResultBytes != len(result) || len(s.Result) > MaxTraceField {
		t.Errorf("result %d bytes, noted %d, ends %q", len(s.Result), s.ResultBytes, s.Result[len(s.Result)-40:])
	}
}

// Redaction never fails, and what it redacted stays so when redacted again.
func FuzzRedactSecrets(f *testing.F) {
	f.Add(`{"body":"{\"access_token\":\"s3cr3t\"}","api_key":12}`)
	f.Add(`GET /?apikey=x&token=y Authorization: Bearer z`)
	f.Add(`{"\u0074oken":'a',"password":["b"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		once := redactSecrets(s)
		if twice := redactSecrets(once); twice != once {
			t.Fatalf("redactSecrets(%q) = %q, and again %q", s, once, twice)
		}
	})
}
