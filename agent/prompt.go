package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/prompts"
)

// Prompt builds the messages the model is sent for in: the system prompt
// (instructions and tools, the same from turn to turn), then the history,
// with the time heading the newest message of a person, so that everything
// before it keeps the same bytes from turn to turn and Ollama can reuse its
// cache.
func (a *Agent) Prompt(in Input) ([]ryo.ModelMessage, error) { return a.prompt(in, a.toolsFor(in)) }

func (a *Agent) prompt(in Input, tools []prompts.Tool) ([]ryo.ModelMessage, error) {
	system, err := a.cfg.Prompts.System(prompts.System{
		BotName:     in.Bot.FirstName,
		BotUsername: in.Bot.Username,
		ChatType:    string(in.Chat.Type),
		InTopic:     in.Place.Thread != 0,
		Tools:       tools,
		Persona:     persona(in.Persona),
	})
	if err != nil {
		return nil, err
	}
	note, err := a.cfg.Prompts.Now(prompts.Now{
		Time:     a.cfg.Clock.Now().In(a.cfg.Location).Format("Monday, 2 January 2006, 15:04"),
		Timezone: a.cfg.Location.String(),
		Group:    groupTitle(in.Chat),
		Memories: memories(in.Memories),
	})
	if err != nil {
		return nil, err
	}
	msgs := []ryo.ModelMessage{{Role: ryo.ModelSystem, Content: system}}
	newest := newestFromPerson(in.History)
	group := in.Chat.Type.IsGroup()
	for i, m := range in.History {
		if m.Kind == ryo.KindToolResult {
			msgs = append(msgs, commandOf(m))
		}
		msg := modelMessage(m, group)
		if i == newest {
			msg.Content = note + "\n" + msg.Content
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// Bounds of the memories shown with a turn.
const (
	maxMemories     = 5
	maxMemoryChars  = 1500 // all of them together
	maxMemoryLength = 400  // one of them
)

// memories are the memories shown to the model: a few, each on one line
// and cut when long, none able to pass for a tool result (a memory is a
// person's words).
func memories(ms []Memory) []prompts.Memory {
	var out []prompts.Memory
	total := 0
	for _, m := range ms {
		text := strings.Join(strings.Fields(Neutralise(m.Content)), " ")
		if r := []rune(text); len(r) > maxMemoryLength {
			text = string(r[:maxMemoryLength-1]) + "…"
		}
		total += len([]rune(text))
		if len(out) == maxMemories || total > maxMemoryChars {
			break
		}
		out = append(out, prompts.Memory{ID: m.ID, Content: text})
	}
	return out
}

func newestFromPerson(history []ryo.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Kind == ryo.KindUser {
			return i
		}
	}
	return -1
}

// modelMessage is how the model sees a stored message: its own answers as
// the envelopes it is asked for, tool results as they were given, and what
// people wrote — with the writer named in groups, and never passing for a
// tool result.
func modelMessage(m ryo.Message, group bool) ryo.ModelMessage {
	switch m.Kind {
	case ryo.KindAssistant:
		return ryo.ModelMessage{Role: ryo.ModelAssistant, Content: asEnvelope(m.Text, nil)}
	case ryo.KindSystem:
		return ryo.ModelMessage{Role: ryo.ModelSystem, Content: m.Text}
	case ryo.KindToolResult:
		return ryo.ModelMessage{Role: ryo.ModelUser, Content: m.Text}
	}
	text := Neutralise(m.Text)
	if n := len(m.Photos()); n > 0 {
		text = strings.TrimSuffix(photoNote(n, len(m.Images))+" "+text, " ")
	}
	if group && m.Sender != nil {
		text = "[" + Speaker(*m.Sender) + "]: " + quoteSpeakerLines(text)
	}
	return ryo.ModelMessage{Role: ryo.ModelUser, Content: text, Images: m.Images}
}

// commandOf is the command that led to a stored tool result, as the
// envelope the model gave, so that the history keeps its shape: a command,
// its result, an answer.
func commandOf(result ryo.Message) ryo.ModelMessage {
	var meta struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(result.Metadata, &meta)
	if !json.Valid(meta.Arguments) || len(meta.Arguments) == 0 || meta.Arguments[0] != '{' {
		meta.Arguments = json.RawMessage(`{}`)
	}
	return ryo.ModelMessage{Role: ryo.ModelAssistant, Content: asEnvelope("", &Command{Intent: meta.Tool, Slots: meta.Arguments, Confidence: 1})}
}

func asEnvelope(reply string, c *Command) string {
	data, _ := json.Marshal(Envelope{Reply: reply, Command: c, Tags: []string{}})
	return string(data)
}

// photoNote heads a message that came with photos: the model is told
// whether it is shown them, so that it never makes up what an unseen one
// showed.
func photoNote(photos, shown int) string {
	what := "a photo"
	if photos > 1 {
		what = fmt.Sprintf("%d photos", photos)
	}
	if shown == 0 {
		return "(sent " + what + ", not shown to you now)"
	}
	return "(sent " + what + ", attached)"
}
