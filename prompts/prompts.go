package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Set is the parsed templates.
type Set struct {
	tmpl      *template.Template
	systems   *kept // system prompts
	envelopes *kept // envelope schemas
}

// Load parses the embedded templates. An error here is a bug in a template
// and stops start-up.
func Load() (*Set, error) {
	t, err := template.New("").Option("missingkey=error").ParseFS(files, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("parse prompts: %w", err)
	}
	for _, name := range []string{"system.tmpl", "now.tmpl"} {
		if t.Lookup(name) == nil {
			return nil, fmt.Errorf("parse prompts: %s is missing", name)
		}
	}
	return &Set{tmpl: t, systems: newKept(), envelopes: newKept()}, nil
}

// System is what the system prompt is rendered from.
type System struct {
	BotName     string
	BotUsername string
	ChatType    string // private, group, supergroup; a group's title is in Now, never here
	InTopic     bool
	Tools       []Tool // the tools this person may use
	// Persona is what the chat's admins say of the bot's character there,
	// made safe by the agent: shown as their words, in a section of its
	// own before the rules, which come after it and have the last word.
	Persona string
}

// CompactSchema is a tool's argument schema on one line, for the prompt.
func (t Tool) CompactSchema() string {
	var b bytes.Buffer
	if err := json.Compact(&b, t.Schema); err != nil {
		return string(t.Schema)
	}
	return b.String()
}

// Group reports whether several people share the chat.
func (s System) Group() bool { return s.ChatType == "group" || s.ChatType == "supergroup" }

// Now is what the per-turn note is rendered from.
type Now struct {
	Time     string // e.g. "Sunday, 22 November 2026, 14:05"
	Timezone string // IANA name
	// Group is the group's title, on one line and neutralised: it is a
	// person's words, so it is shown with their message, never in the
	// system prompt.
	Group    string
	Memories []Memory
}

// Memory is a remembered fact shown with the newest message.
type Memory struct {
	ID      int64
	Content string // one line
}

// Now renders the note that heads the newest message: the memories that
// may help with it, and the time.
func (s *Set) Now(data Now) (string, error) { return s.render("now.tmpl", data) }

func (s *Set) render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return strings.TrimSpace(b.String()), nil
}
