package openapi

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The credential never reaches the model, however the API quotes it back:
// as sent, escaped for a query, with "/" escaped as JSON encoders may
// ("\/"), in any JSON escape (\u0071), through HTML entities, or only the
// token of an "Authorization: Bearer <token>" value.

const redacted = "[redacted]"

// secrets are the forms of the credential to look for, longest first;
// none when there is no credential or it is too short to look for.
func (c *call) secrets() []string {
	value := c.auth.Value.Reveal()
	if c.auth.In == "" || len(value) < 4 {
		return nil
	}
	forms := []string{value}
	if _, token, ok := strings.Cut(value, " "); ok && len(strings.TrimSpace(token)) >= 4 {
		forms = append(forms, strings.TrimSpace(token))
	}
	for _, f := range forms[:len(forms):len(forms)] {
		for _, v := range []string{queryEscape(f, false), strings.ReplaceAll(f, "/", `\/`)} {
			if v != f {
				forms = append(forms, v)
			}
		}
	}
	return forms
}

// redact removes the credential from the bytes the API sent back.
func (c *call) redact(data []byte) []byte {
	for _, s := range c.secrets() {
		data = bytes.ReplaceAll(data, []byte(s), []byte(redacted))
	}
	return data
}

// redactText removes the credential from text decoded from the answer.
func (c *call) redactText(s string) string {
	for _, secret := range c.secrets() {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	return s
}

// redactJSON removes the credential from a JSON answer that still holds
// it once its strings are decoded: the answer is written again, members
// in their order and numbers with their digits, its strings redacted. An
// answer that is not JSON, or holds no credential, is returned as it is.
func (c *call) redactJSON(data []byte) []byte {
	if len(c.secrets()) == 0 || !c.leaks(data) {
		return data
	}
	var out bytes.Buffer
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := c.rewrite(d, &out); err != nil {
		return data
	}
	return out.Bytes()
}

// leaks reports whether a string of the JSON data, decoded, holds the
// credential.
func (c *call) leaks(data []byte) bool {
	d := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok && c.redactText(s) != s {
			return true
		}
	}
}

// rewrite copies one JSON value from d to out with its strings redacted.
func (c *call) rewrite(d *json.Decoder, out *bytes.Buffer) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return c.scalar(tok, out)
	}
	out.WriteString(delim.String())
	for i := 0; d.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		if delim == '{' {
			key, err := d.Token()
			if err != nil {
				return err
			}
			if err := c.scalar(key, out); err != nil {
				return err
			}
			out.WriteByte(':')
		}
		if err := c.rewrite(d, out); err != nil {
			return err
		}
	}
	end, err := d.Token()
	if err != nil {
		return err
	}
	out.WriteString(end.(json.Delim).String())
	return nil
}

func (c *call) scalar(tok json.Token, out *bytes.Buffer) error {
	if s, ok := tok.(string); ok {
		tok = c.redactText(s)
	}
	e := json.NewEncoder(out)
	e.SetEscapeHTML(false)
	if err := e.Encode(tok); err != nil {
		return err
	}
	out.Truncate(out.Len() - 1) // Encode's newline
	return nil
}
