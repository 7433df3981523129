package prompts

import (
	"encoding/binary"
	"sync"
)

// maxSystems bounds the system prompts a Set keeps: one for each bot,
// chat type, tool set and persona in use, a few kilobytes each.
const maxSystems = 128

// systems keeps rendered system prompts by everything they are rendered
// from, so that a chat's turns after its first render nothing: the
// template, run every turn, was a twentieth of ryo's CPU time.
type systems struct {
	mu     sync.Mutex
	byData map[string]string
}

func (c *systems) get(key []byte) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.byData[string(key)]
	return p, ok
}

// put keeps p; when full, it forgets all it kept before.
func (c *systems) put(key []byte, p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byData) >= maxSystems {
		clear(c.byData)
	}
	c.byData[string(key)] = p
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
