package bot

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/stages"
)

// turn answers a message meant for the bot: store it, show the turn live
// in a status message, ask the agent and remember the answer, deliver the
// answer, and store it while marking the update done.
//
// A turn interrupted at any point runs again from the inbox; what its
// earlier run got done is reused: the stored message, the status message
// (edited, never posted twice) and the model's answer (delivered, never asked
// for twice).
func (b *Bot) turn(ctx context.Context, id int64, m *models.Message) error {
	chat, place := chatOf(m.Chat), placeOf(m)
	log := b.log.With("update_id", id, "chat_id", chat.ID)
	if _, err := b.db.SaveUserMessage(ctx, chat, b.userMessage(id, m)); err != nil {
		return err
	}
	prior, err := b.db.Turn(ctx, id)
	if err != nil {
		return err
	}
	start := stages.Start{Place: place, Private: chat.Type == ryo.ChatPrivate, ReplyTo: m.ID, Since: prior.CreatedAt,
		Adopt: prior.StatusMessageID, DraftID: id, Record: func(status int) error {
			return b.record(ctx, "remember status message", func(ctx context.Context) error {
				return b.db.SaveTurnStatus(ctx, id, place, status)
			})
		}}
	if prior.Answer != "" {
		return b.deliver(ctx, log, id, m, b.stages.Adopt(start), prior.Answer, prior.AnswerMetadata, prior.Parts)
	}
	shown := b.stages.Begin(ctx, start)
	defer shown.Close() // also when the turn panics: the failure is then shown in the status message
	answer, meta, err := b.ask(ctx, id, chat, place, shown)
	if err != nil {
		return b.turnFailed(ctx, log, id, shown, err)
	}
	return b.deliver(ctx, log, id, m, shown, answer, meta, nil)
}

// ask gives the agent the recent history, shows its steps as it goes, and
// remembers its answer before anything is delivered.
func (b *Bot) ask(ctx context.Context, id int64, chat ryo.Chat, place ryo.Place, shown *stages.Turn) (string, json.RawMessage, error) {
	history, err := b.db.History(ctx, place, b.cfg.HistoryLimit)
	if err != nil {
		return "", nil, err
	}
	started := time.Now()
	turnCtx, cancel := context.WithTimeout(ctx, b.cfg.TurnTimeout)
	defer cancel()
	out, err := b.agent.Run(turnCtx, agent.Input{Bot: b.me, Chat: chat, Place: place, UpdateID: id, History: history,
		Observe: shown.Observe})
	if err != nil {
		return "", nil, err
	}
	meta := b.answerMetadata(out, time.Since(started))
	err = b.record(ctx, "save answer", func(ctx context.Context) error {
		return b.db.SaveTurnAnswer(ctx, id, place, out.Text, meta)
	})
	return out.Text, meta, err
}

// deliver sends the answer and stores it as done. delivered are the parts
// an interrupted delivery already sent.
func (b *Bot) deliver(ctx context.Context, log *slog.Logger, id int64, m *models.Message, shown *stages.Turn,
	answer string, meta json.RawMessage, delivered []int) error {
	var about answerAbout
	_ = json.Unmarshal(meta, &about) // written by answerMetadata; unreadable means no tags or tools
	var ids []int
	err := idle(ctx, func() error { // Telegram may make the answer wait its turn: other chats go on meanwhile
		var err error
		ids, err = shown.Finish(ctx, answer, about.Tools, delivered, func(ids []int) error {
			return b.record(ctx, "remember answer parts", func(ctx context.Context) error { return b.db.SaveTurnParts(ctx, id, ids) })
		})
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			shown.Pause(ctx)
		}
		return err
	}
	msg := ryo.Message{Place: placeOf(m), Kind: ryo.KindAssistant, Text: answer, TelegramID: ids[0],
		ReplyTo: m.ID, UpdateID: id, Metadata: withMessageIDs(meta, ids)}
	err = b.record(ctx, "finish turn", func(ctx context.Context) error {
		_, err := b.db.FinishTurn(ctx, msg, about.Tags)
		return err
	})
	if err != nil {
		return err
	}
	log.Info("turn answered", "parts", len(ids), "meta", string(meta))
	return nil
}

// answerAbout is what delivery reads back from the answer's metadata.
type answerAbout struct {
	Tags  []string `json:"tags"`
	Tools []string `json:"tools"`
}

// turnFailed tells the person why there is no answer, where the answer would
// have been, and marks the update failed. Shutdown and a lost database are
// not the turn's failure: the status message shows the turn paused and the
// update is left to be resumed.
func (b *Bot) turnFailed(ctx context.Context, log *slog.Logger, id int64, shown *stages.Turn, err error) error {
	if ctx.Err() != nil || errors.Is(err, memory.ErrUnavailable) {
		shown.Pause(ctx)
		return err
	}
	log.Error("turn failed", "code", ryo.ErrorCode(err), "err", err)
	if ferr := idle(ctx, func() error { return shown.Fail(ctx, ryo.ErrorMessage(err)) }); ferr != nil {
		return ferr
	}
	return b.record(ctx, "finish failed turn", func(ctx context.Context) error {
		return b.db.FinishUpdate(ctx, id, memory.StateFailed, ryo.ErrorCode(err)+": "+err.Error())
	})
}

// answerMetadata records what the answer cost.
func (b *Bot) answerMetadata(out agent.Output, took time.Duration) json.RawMessage {
	meta, _ := json.Marshal(map[string]any{
		"model":          b.model,
		"duration_ms":    ms(took),
		"tags":           out.Tags,
		"rounds":         out.Rounds,
		"repairs":        out.Repairs,
		"tools":          out.Tools,
		"claimed_action": out.ClaimedAction,
		"usage": map[string]any{
			"prompt_tokens":  out.Usage.PromptTokens,
			"reply_tokens":   out.Usage.ReplyTokens,
			"load_ms":        ms(out.Usage.LoadDuration),
			"prompt_ms":      ms(out.Usage.PromptDuration),
			"reply_ms":       ms(out.Usage.ReplyDuration),
			"model_total_ms": ms(out.Usage.TotalDuration),
		},
	})
	return meta
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// withMessageIDs adds the ids of the Telegram messages that carry the answer.
func withMessageIDs(meta json.RawMessage, ids []int) json.RawMessage {
	fields := map[string]any{}
	_ = json.Unmarshal(meta, &fields) // stored by answerMetadata; an unreadable one is replaced
	fields["message_ids"] = ids
	out, _ := json.Marshal(fields)
	return out
}
