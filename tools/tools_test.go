package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ryo-bot/ryo/toolbus"
)

// runTool runs a spec's tool with args and returns its result as JSON.
func runTool(t *testing.T, spec toolbus.Spec, args string) (string, error) {
	t.Helper()
	res, err := spec.Tool.Call(context.Background(), json.RawMessage(args))
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("%s(%s): result does not encode: %v", spec.Name, args, err)
	}
	return string(out), nil
}

// wantError checks that err is a *toolbus.Error with code and message.
func wantError(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	var te *toolbus.Error
	if !errors.As(err, &te) {
		t.Fatalf("%s: error = %v; want a *toolbus.Error %s", what, err, code)
	}
	if te.Code != code || (message != "" && te.Message != message) {
		t.Errorf("%s: error = %s: %s\n want %s: %s", what, te.Code, te.Message, code, message)
	}
}
