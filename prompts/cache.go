package prompts

import (
	"encoding/binary"
	"encoding/json"
	"sync"
)

// maxKept bounds the prompts and schemas a Set keeps of each kind: one
// for each bot, chat type, tool set and persona in use, a few kilobytes
// each.
const maxKept = 128

// kept keeps what a Set rendered by everything it was rendered from, so
// that a chat's turns after its first render nothing: the system prompt's
// template and the envelope schema's JSON, made on every turn, were a
// twelfth of ryo's CPU time.
type kept struct {
	mu     sync.Mutex
	byData map[string]string
}

func newKept() *kept { return &kept{byData: map[string]string{}} }

func (c *kept) get(key []byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byData[string(key)]
	return v, ok
}

// put keeps v; when full, it forgets one it kept before, any one (a
// map's order is random). Forgetting all of them made every turn render
// anew once more chats were in use than are kept: each newcomer cleared
// what the next turns needed.
func (c *kept) put(key []byte, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byData[string(key)]; !ok && len(c.byData) >= maxKept {
		for k := range c.byData {
			delete(c.byData, k)
			break
		}
	}
	c.byData[string(key)] = v
}

// System renders the system prompt, or returns the one it rendered
// before from the same data.
func (s *Set) System(data System) (string, error) {
	key := data.key()
	if p, ok := s.systems.get(key); ok {
		return p, nil
	}
	p, err := s.render("system.tmpl", data)
	if err != nil {
		return "", err
	}
	s.systems.put(key, p)
	return p, nil
}

// Envelope is Envelope(tools), made once for the same tool names (all it
// depends on); each call has its own copy.
func (s *Set) Envelope(tools []Tool) (json.RawMessage, error) {
	var key []byte
	for _, t := range tools {
		key = appendField(key, t.Name)
	}
	if e, ok := s.envelopes.get(key); ok {
		return json.RawMessage(e), nil
	}
	e, err := Envelope(tools)
	if err != nil {
		return nil, err
	}
	s.envelopes.put(key, string(e))
	return e, nil
}

// key is every field of s, each after its length, so that two different
// Systems never share a key.
func (s System) key() []byte {
	n := len(s.BotName) + len(s.BotUsername) + len(s.ChatType) + len(s.Persona) + 16
	for _, t := range s.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema) + 12
	}
	b := make([]byte, 0, n)
	for _, f := range []string{s.BotName, s.BotUsername, s.ChatType, s.Persona} {
		b = appendField(b, f)
	}
	if s.InTopic {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, t := range s.Tools {
		b = appendField(b, t.Name)
		b = appendField(b, t.Description)
		b = appendField(b, string(t.Schema))
	}
	return b
}

func appendField(b []byte, f string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(f))), f...)
}
