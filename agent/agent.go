package agent

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/prompts"
)

// Model is the language model the agent asks.
type Model interface {
	Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)
}

// Agent answers turns.
type Agent struct {
	model    Model
	prompts  *prompts.Set
	location *time.Location
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// New returns an agent that tells times in location.
func New(model Model, set *prompts.Set, location *time.Location) *Agent {
	return &Agent{model: model, prompts: set, location: location, Now: time.Now}
}

// Input is one turn to answer.
type Input struct {
	Bot     ryo.User // who the bot is in Telegram
	Chat    ryo.Chat
	Place   ryo.Place
	History []ryo.Message // oldest first; the newest is the message to answer
	OnDelta func(delta string)
}

// Output is the answer.
type Output struct {
	Text  string
	Usage ryo.Usage
}

// ErrEmptyAnswer is returned when the model answers nothing at all.
var ErrEmptyAnswer = &ryo.Error{Code: ryo.EUNAVAILABLE, Err: errors.New("model: empty answer"),
	Message: "The model gave an empty answer. Please try again or rephrase."}

// Run answers the newest message of in.History.
func (a *Agent) Run(ctx context.Context, in Input) (Output, error) {
	msgs, err := a.Prompt(in)
	if err != nil {
		return Output{}, err
	}
	reply, err := a.model.Chat(ctx, ryo.ModelRequest{Messages: msgs, OnDelta: in.OnDelta})
	if err != nil {
		return Output{}, err
	}
	text := strings.TrimSpace(reply.Content)
	if text == "" {
		return Output{}, ErrEmptyAnswer
	}
	return Output{Text: text, Usage: reply.Usage}, nil
}

// Prompt builds the messages the model is sent for in.
func (a *Agent) Prompt(in Input) ([]ryo.ModelMessage, error) {
	system, err := a.prompts.System(prompts.System{
		BotName:     in.Bot.FirstName,
		BotUsername: in.Bot.Username,
		ChatType:    string(in.Chat.Type),
		ChatTitle:   in.Chat.Title,
		InTopic:     in.Place.Thread != 0,
	})
	if err != nil {
		return nil, err
	}
	msgs := []ryo.ModelMessage{{Role: ryo.ModelSystem, Content: system}}
	group := in.Chat.Type.IsGroup()
	for i, m := range in.History {
		if i == len(in.History)-1 {
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

// note tells the model the time and who speaks, just before the newest
// message, so that everything before it stays the same from turn to turn.
func (a *Agent) note(newest ryo.Message) (string, error) {
	now := a.Now().In(a.location)
	speaker := ""
	if newest.Sender != nil {
		speaker = newest.Sender.Name()
	}
	return a.prompts.Now(prompts.Now{
		Time:     now.Format("Monday, 2 January 2006, 15:04"),
		Timezone: a.location.String(),
		Speaker:  speaker,
	})
}

func modelMessage(m ryo.Message, group bool) ryo.ModelMessage {
	switch m.Kind {
	case ryo.KindAssistant:
		return ryo.ModelMessage{Role: ryo.ModelAssistant, Content: m.Text}
	case ryo.KindSystem:
		return ryo.ModelMessage{Role: ryo.ModelSystem, Content: m.Text}
	}
	if group && m.Sender != nil {
		return ryo.ModelMessage{Role: ryo.ModelUser, Content: "[" + m.Sender.Name() + "]: " + m.Text}
	}
	return ryo.ModelMessage{Role: ryo.ModelUser, Content: m.Text}
}
