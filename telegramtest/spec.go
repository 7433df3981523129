package telegramtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// botAPIMethods is every method of Bot API 10.1 with its parameters, their
// types and whether they are required. It was reduced from
// PaulSonOfLars/telegram-bot-api-spec (api.json), the community-maintained
// machine-readable spec scraped from the official Bot API page
// https://core.telegram.org/bots/api; its "source" and "version" fields say
// so. It is kept here so that the fake never needs anything outside the
// repository.
//
//go:embed botapi-methods.json
var botAPIMethods []byte

// botAPI is the published Bot API: its methods by lowercase name, since
// Telegram reads method names case-insensitively.
type botAPI map[string]*methodSpec

type methodSpec struct {
	name   string
	params []paramSpec
	byName map[string]paramSpec
}

type paramSpec struct {
	Name     string   `json:"name"`
	Required bool     `json:"required"`
	Types    []string `json:"types"`
}

// loadBotAPI reads the embedded spec. It panics if the file is broken,
// which only a bad edit of it can cause.
func loadBotAPI() botAPI {
	var file struct {
		Version string                 `json:"version"`
		Methods map[string][]paramSpec `json:"methods"`
	}
	if err := json.Unmarshal(botAPIMethods, &file); err != nil || len(file.Methods) == 0 {
		panic(fmt.Sprintf("telegramtest: botapi-methods.json: %v", err))
	}
	api := make(botAPI, len(file.Methods))
	for name, params := range file.Methods {
		m := &methodSpec{name: name, params: params, byName: make(map[string]paramSpec, len(params))}
		for _, p := range params {
			m.byName[p.Name] = p
		}
		api[strings.ToLower(name)] = m
	}
	return api
}

// check refuses a call the Bot API would not take: a parameter the method
// does not have, a required one missing or empty, or a value of the wrong
// type. Unknown parameters are refused although Telegram ignores them, so
// that typos and parameters Telegram no longer reads show up in tests.
func (m *methodSpec) check(p params, files map[string]upload) error {
	if err := m.checkNames(p); err != nil {
		return err
	}
	for _, ps := range m.params {
		_, isFile := files[ps.Name]
		v := p[ps.Name]
		switch {
		case !isFile && v == "" && ps.Required:
			return missingParam(m.name, ps.Name)
		case !isFile && v == "":
			// Telegram reads an empty value as an absent one.
		case !ps.accepts(v, isFile):
			return wrongType(ps)
		}
	}
	return nil
}

// checkNames refuses a parameter the method does not have, in name order
// so that the answer does not vary.
func (m *methodSpec) checkNames(p params) error {
	for _, name := range slices.Sorted(maps.Keys(p)) {
		if _, ok := m.byName[name]; ok {
			continue
		}
		return badRequest("parameter %q is not a parameter of %s in Bot API 10.1: Telegram would silently ignore it, "+
			"the fake refuses it so that typos and removed parameters show up", name, m.name)
	}
	return nil
}

// missingParam is Telegram's answer to a required parameter left out, in
// its own words where they are known.
func missingParam(method, name string) APIError {
	switch {
	case name == "chat_id":
		return badRequest("chat_id is empty")
	case name == "text" && strings.EqualFold(method, "sendMessage"):
		return badRequest("message text is empty")
	case name == "message_id":
		return badRequest("message identifier is not specified")
	case name == "callback_query_id":
		return badRequest("QUERY_ID_INVALID")
	case name == "document":
		return badRequest("there is no document in the request")
	case name == "photo":
		return badRequest("there is no photo in the request")
	}
	return badRequest("parameter %q is required", name)
}

// wrongType is Telegram's answer to a value of the wrong type: its own
// words for the JSON parameters whose refusals are known, the expected
// type otherwise.
func wrongType(ps paramSpec) APIError {
	switch ps.Name {
	case "reply_markup":
		return badRequest("can't parse reply keyboard markup JSON object")
	case "reply_parameters":
		return badRequest("can't parse reply parameters JSON object")
	case "entities", "caption_entities":
		return badRequest("can't parse entities JSON object")
	case "allowed_updates":
		return badRequest("can't parse allowed updates JSON array")
	case "commands":
		return badRequest("can't parse commands JSON object")
	case "scope":
		return badRequest("can't parse BotCommandScope JSON object")
	}
	return badRequest("field %q must be of type %s", ps.Name, strings.Join(ps.Types, " or "))
}

// accepts reports whether a value, flattened to a string, is of one of the
// parameter's types. An InputFile is a multipart file part.
func (ps paramSpec) accepts(v string, isFile bool) bool {
	for _, t := range ps.Types {
		if t == "InputFile" && isFile || !isFile && valueOfType(t, v) {
			return true
		}
	}
	return false
}

func valueOfType(t, v string) bool {
	switch t {
	case "InputFile":
		return false
	case "String":
		return true
	case "Integer":
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case "Float":
		_, err := strconv.ParseFloat(v, 64)
		return err == nil
	case "Boolean":
		switch strings.ToLower(v) {
		case "true", "false", "1", "0":
			return true
		}
		return false
	}
	if elem, ok := strings.CutPrefix(t, "Array of "); ok {
		return arrayOf(elem, v)
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(v), &obj) == nil && obj != nil
}

// arrayOf reports whether v is a JSON array whose elements are all of type
// elem: numbers for Integer and Float, strings for String, objects for the
// Bot API's object types.
func arrayOf(elem, v string) bool {
	var list []json.RawMessage
	if json.Unmarshal([]byte(v), &list) != nil || list == nil {
		return false
	}
	for _, raw := range list {
		var s string
		isString := json.Unmarshal(raw, &s) == nil
		switch {
		case elem == "String" && !isString:
			return false
		case elem != "String" && (isString || !valueOfType(elem, string(raw))):
			return false
		}
	}
	return true
}

// notImplemented answers a real Bot API method the fake has no handler for,
// in words nobody can take for Telegram's.
func notImplemented(method string) APIError {
	return APIError{Code: http.StatusNotImplemented,
		Description: "telegramtest: " + method + " is a real Bot API method the fake does not implement"}
}
