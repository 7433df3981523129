package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/go-telegram/bot/models"
)

// decodeUpdate reads a raw update. Telegram runs ahead of the Bot API
// version go-telegram's models know, so a field may come in a shape they
// cannot hold: a number that became an object, a new kind of forward origin
// or reaction. That must not cost the whole message. encoding/json goes on
// past a mismatched type, but not past an error of a model's own
// UnmarshalJSON, which also stops the objects around it; so an update that
// does not decode whole is decoded again field by field, and the fields left
// out are named in skipped. Only JSON that is not an object is malformed.
// An object that decodes whole is decoded once.
func decodeUpdate(raw []byte) (upd models.Update, skipped []string, err error) {
	if isObject(raw) && json.Unmarshal(raw, &upd) == nil {
		return upd, nil, nil
	}
	upd = models.Update{}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return models.Update{}, nil, errors.Join(errMalformed, err)
	}
	if json.Unmarshal(raw, &upd) == nil {
		return upd, nil, nil
	}
	upd = models.Update{}
	skipped = decodeFields(raw, reflect.ValueOf(&upd).Elem(), "", 0)
	slices.Sort(skipped)
	return upd, skipped, nil
}

// maxDecodeDepth bounds how deep decodeFields goes into a broken update;
// Telegram nests messages two or three levels at most.
const maxDecodeDepth = 8

// decodeFields fills the struct v from the JSON object data one field at a
// time, and returns the paths of what it had to leave out.
func decodeFields(data []byte, v reflect.Value, path string, depth int) []string {
	var fields map[string]json.RawMessage
	if depth > maxDecodeDepth || json.Unmarshal(data, &fields) != nil {
		return []string{path}
	}
	var skipped []string
	for name, value := range fields {
		if f, ok := fieldNamed(v, name); ok {
			skipped = append(skipped, decodeValue(value, f, strings.TrimPrefix(path+"."+name, "."), depth)...)
		}
	}
	return skipped
}

// decodeValue decodes data into f. What does not decode whole is decoded a
// part at a time when it is a struct or a list: a list keeps the elements
// that decode whole. Anything else that does not decode is left zero.
func decodeValue(data []byte, f reflect.Value, path string, depth int) []string {
	if json.Unmarshal(data, f.Addr().Interface()) == nil {
		return nil
	}
	f.SetZero()
	t := f.Type()
	switch {
	case t == maybeInaccessible:
		return decodeMaybeInaccessible(data, f.Addr().Interface().(*models.MaybeInaccessibleMessage), path, depth)
	case plainStruct(t):
		return decodeFields(data, f, path, depth+1)
	case t.Kind() == reflect.Pointer && (plainStruct(t.Elem()) || t.Elem() == maybeInaccessible):
		p := reflect.New(t.Elem())
		skipped := decodeValue(data, p.Elem(), path, depth)
		if isObject(data) {
			f.Set(p)
		}
		return skipped
	case t.Kind() == reflect.Slice:
		return decodeElems(data, f, path)
	}
	return []string{path}
}

// decodeElems decodes a JSON array into the slice f, keeping the elements
// that decode whole.
func decodeElems(data []byte, f reflect.Value, path string) []string {
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) != nil {
		return []string{path}
	}
	var skipped []string
	kept := reflect.MakeSlice(f.Type(), 0, len(elems))
	for i, e := range elems {
		v := reflect.New(f.Type().Elem()).Elem()
		if json.Unmarshal(e, v.Addr().Interface()) != nil {
			skipped = append(skipped, fmt.Sprintf("%s[%d]", path, i))
			continue
		}
		kept = reflect.Append(kept, v)
	}
	f.Set(kept)
	return skipped
}

// decodeMaybeInaccessible does what the model's own UnmarshalJSON does (a
// message without a date is one the bot can no longer see), field by field.
func decodeMaybeInaccessible(data []byte, m *models.MaybeInaccessibleMessage, path string, depth int) []string {
	var probe struct {
		Date int `json:"date"`
	}
	_ = json.Unmarshal(data, &probe) // a date that does not read is no date
	if probe.Date == 0 {
		m.Type, m.InaccessibleMessage = models.MaybeInaccessibleMessageTypeInaccessibleMessage, &models.InaccessibleMessage{}
		return decodeFields(data, reflect.ValueOf(m.InaccessibleMessage).Elem(), path, depth+1)
	}
	m.Type, m.Message = models.MaybeInaccessibleMessageTypeMessage, &models.Message{}
	return decodeFields(data, reflect.ValueOf(m.Message).Elem(), path, depth+1)
}

var (
	maybeInaccessible = reflect.TypeFor[models.MaybeInaccessibleMessage]()
	unmarshaler       = reflect.TypeFor[json.Unmarshaler]()
)

// plainStruct reports whether t is a struct that encoding/json fills field
// by field, with no UnmarshalJSON of its own.
func plainStruct(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !t.Implements(unmarshaler) && !reflect.PointerTo(t).Implements(unmarshaler)
}

// fieldNamed finds the field of struct v that the JSON key name fills.
func fieldNamed(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		key, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if key == "" {
			key = sf.Name
		}
		if sf.IsExported() && key != "-" && strings.EqualFold(key, name) {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func isObject(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
}
