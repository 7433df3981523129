package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStylesFollowTheSpecification checks each style against the table
// of style examples in the OpenAPI Specification 3.1.1 ("Style Examples",
// section 4.8.12.4): color as the string "blue", the array
// ["blue","black","brown"] and the object {"R":100,"G":200,"B":150}. The
// specification shows values before percent-encoding; the client escapes
// deepObject's brackets (%5B, %5D), which servers read the same.
func TestStylesFollowTheSpecification(t *testing.T) {
	values := map[kind]string{
		scalarKind: `"blue"`,
		arrayKind:  `["blue","black","brown"]`,
		objectKind: `{"R":100,"G":200,"B":150}`,
	}
	for _, tc := range []struct {
		in, style string
		explode   bool
		want      map[kind]string
	}{
		{"path", "matrix", false, map[kind]string{scalarKind: ";color=blue", arrayKind: ";color=blue,black,brown", objectKind: ";color=R,100,G,200,B,150"}},
		{"path", "matrix", true, map[kind]string{scalarKind: ";color=blue", arrayKind: ";color=blue;color=black;color=brown", objectKind: ";R=100;G=200;B=150"}},
		{"path", "label", false, map[kind]string{scalarKind: ".blue", arrayKind: ".blue,black,brown", objectKind: ".R,100,G,200,B,150"}},
		{"path", "label", true, map[kind]string{scalarKind: ".blue", arrayKind: ".blue.black.brown", objectKind: ".R=100.G=200.B=150"}},
		{"path", "simple", false, map[kind]string{scalarKind: "blue", arrayKind: "blue,black,brown", objectKind: "R,100,G,200,B,150"}},
		{"path", "simple", true, map[kind]string{scalarKind: "blue", arrayKind: "blue,black,brown", objectKind: "R=100,G=200,B=150"}},
		{"header", "simple", false, map[kind]string{scalarKind: "blue", arrayKind: "blue,black,brown", objectKind: "R,100,G,200,B,150"}},
		{"header", "simple", true, map[kind]string{scalarKind: "blue", arrayKind: "blue,black,brown", objectKind: "R=100,G=200,B=150"}},
		{"query", "form", false, map[kind]string{scalarKind: "color=blue", arrayKind: "color=blue,black,brown", objectKind: "color=R,100,G,200,B,150"}},
		{"query", "form", true, map[kind]string{scalarKind: "color=blue", arrayKind: "color=blue&color=black&color=brown", objectKind: "R=100&G=200&B=150"}},
		{"query", "spaceDelimited", false, map[kind]string{arrayKind: "color=blue%20black%20brown", objectKind: "color=R%20100%20G%20200%20B%20150"}},
		{"query", "pipeDelimited", false, map[kind]string{arrayKind: "color=blue|black|brown", objectKind: "color=R|100|G|200|B|150"}},
		{"query", "deepObject", true, map[kind]string{objectKind: "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"}},
	} {
		for k, want := range tc.want {
			p := param{name: "color", in: tc.in, style: tc.style, explode: tc.explode, kind: k}
			v, err := decodeValue(json.RawMessage(values[k]))
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch tc.in {
			case "path":
				got = pathValue(p, v)
			case "header":
				got = headerValue(p, v)
			default:
				got = strings.Join(queryPairs(p, v), "&")
			}
			if got != want {
				t.Errorf("%s %s explode=%v %s: got %q, want %q", tc.in, tc.style, tc.explode, values[k], got, want)
			}
		}
	}
}

// TestEscaping: reserved characters in values never change how a path or
// query is read; allowReserved lets through those that cannot.
func TestEscaping(t *testing.T) {
	for _, tc := range []struct {
		p    param
		v    string
		want string
	}{
		{param{name: "id", in: "path", style: "simple"}, `"a/b?c#d e"`, "a%2Fb%3Fc%23d%20e"},
		{param{name: "id", in: "path", style: "simple"}, `"x,y"`, "x%2Cy"},
		{param{name: "q", in: "query", style: "form", explode: true}, `"a&b=c+d"`, "q=a%26b%3Dc%2Bd"},
		{param{name: "q", in: "query", style: "form", explode: true}, `"ü €"`, "q=%C3%BC%20%E2%82%AC"},
		{param{name: "path", in: "query", style: "form", explode: true, allowReserved: true}, `"/a/b:c,d&e"`, "path=/a/b:c,d%26e"},
		{param{name: "n", in: "query", style: "form", explode: true}, `12345678901234567890`, "n=12345678901234567890"},
		{param{name: "b", in: "query", style: "form", explode: true}, `false`, "b=false"},
		{param{name: "w", in: "query", style: "form", asJSON: true}, `{"near":"Lisbon"}`, "w=%7B%22near%22%3A%22Lisbon%22%7D"},
	} {
		v, err := argValue(tc.p, json.RawMessage(tc.v))
		if err != nil {
			t.Fatal(err)
		}
		got := pathValue(tc.p, v)
		if tc.p.in == "query" {
			got = strings.Join(queryPairs(tc.p, v), "&")
		}
		if got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.p.name, tc.v, got, tc.want)
		}
	}
}

func TestFormBody(t *testing.T) {
	fields, err := formFields(json.RawMessage(`{"name":"Rex Junior","tags":["a b","c&d"],"age":3,"ok":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "name=Rex%20Junior&tags=a%20b&tags=c%26d&age=3&ok=true"
	if got := formBody(fields); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
