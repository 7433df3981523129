package openapi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// load parses an OpenAPI 3.x document, or a Swagger 2.0 one converted to
// 3.0, with its local references resolved. References to other documents
// are refused: a document must not make ryo read files or URLs.
func load(data []byte) (doc *openapi3.T, err error) {
	if len(data) > MaxDocument {
		return nil, fmt.Errorf("the document is %d bytes, more than %d", len(data), MaxDocument)
	}
	defer func() {
		// The parser is not ours: a document it chokes on is a bad
		// document, not a reason to stop.
		if p := recover(); p != nil {
			doc, err = nil, fmt.Errorf("the document cannot be read: %v", p)
		}
	}()
	var head struct {
		Swagger any `yaml:"swagger"`
		OpenAPI any `yaml:"openapi"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("the document is neither JSON nor YAML: %w", firstLine(err))
	}
	loader := &openapi3.Loader{Context: context.Background()}
	switch {
	case head.OpenAPI != nil:
		if v := fmt.Sprint(head.OpenAPI); !strings.HasPrefix(v, "3.") {
			return nil, fmt.Errorf("openapi %q: only 3.x documents (and Swagger 2.0) are read", v)
		}
		doc, err = loader.LoadFromData(data)
	case fmt.Sprint(head.Swagger) == "2.0":
		doc, err = fromSwagger(loader, data)
	default:
		return nil, errors.New(`the document names no version: it needs "openapi: 3.x" or "swagger: 2.0"`)
	}
	if err != nil {
		return nil, firstLine(err)
	}
	if doc.Paths == nil {
		doc.Paths = openapi3.NewPaths()
	}
	return doc, nil
}

func fromSwagger(loader *openapi3.Loader, data []byte) (*openapi3.T, error) {
	var doc2 openapi2.T
	if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return nil, err
	}
	doc, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return nil, fmt.Errorf("convert Swagger 2.0: %w", err)
	}
	if err := loader.ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	return doc, nil
}

// firstLine keeps an error to its first line: parsers' errors can quote
// whole documents.
func firstLine(err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return errors.New(msg)
}
