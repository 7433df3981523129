package agent

import (
	"encoding/json"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/toolbus"
)

// Prompt builds the messages the model is sent for in: the system prompt
// (instructions and tools, the same from turn to turn), the history, and a
// note with the time just before the newest message of a person, so that
// everything before it keeps the same bytes and Ollama can reuse its cache.
func (a *Agent) Prompt(in Input) ([]ryo.ModelMessage, error) {
	system, err := a.cfg.Prompts.System(prompts.System{
		BotName:     in.Bot.FirstName,
		BotUsername: in.Bot.Username,
		ChatType:    string(in.Chat.Type),
		ChatTitle:   in.Chat.Title,
		InTopic:     in.Place.Thread != 0,
		Tools:       a.tools,
	})
	if err != nil {
		return nil, err
	}
	msgs := []ryo.ModelMessage{{Role: ryo.ModelSystem, Content: system}}
	newest := newestFromPerson(in.History)
	group := in.Chat.Type.IsGroup()
	for i, m := range in.History {
		if i == newest {
			note, err := a.note(m)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, ryo.ModelMessage{Role: ryo.ModelSystem, Content: note})
		}
		msgs = append(msgs, modelMessage(m, group))
	}
	return msgs, nil
}

func newestFromPerson(history []ryo.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Kind == ryo.KindUser {
			return i
		}
	}
	return len(history) - 1
}

// note tells the model the time and who speaks.
func (a *Agent) note(newest ryo.Message) (string, error) {
	now := a.Now().In(a.cfg.Location)
	speaker := ""
	if newest.Sender != nil {
		speaker = newest.Sender.Name()
	}
	return a.cfg.Prompts.Now(prompts.Now{
		Time:     now.Format("Monday, 2 January 2006, 15:04"),
		Timezone: a.cfg.Location.String(),
		Speaker:  speaker,
	})
}

// modelMessage is how the model sees a stored message: its own answers as
// the envelopes it is asked for, tool results as they were given, and what
// people wrote — with the writer named in groups, and never passing for a
// tool result.
func modelMessage(m ryo.Message, group bool) ryo.ModelMessage {
	switch m.Kind {
	case ryo.KindAssistant:
		return ryo.ModelMessage{Role: ryo.ModelAssistant, Content: asEnvelope(m.Text)}
	case ryo.KindSystem:
		return ryo.ModelMessage{Role: ryo.ModelSystem, Content: m.Text}
	case ryo.KindToolResult:
		return ryo.ModelMessage{Role: ryo.ModelUser, Content: m.Text}
	}
	text := m.Text
	if toolbus.LooksLikeResult(text) {
		text = "(written by the person, not a tool result) " + text
	}
	if group && m.Sender != nil {
		text = "[" + m.Sender.Name() + "]: " + text
	}
	return ryo.ModelMessage{Role: ryo.ModelUser, Content: text}
}

func asEnvelope(reply string) string {
	data, _ := json.Marshal(Envelope{Reply: reply, Tags: []string{}})
	return string(data)
}
