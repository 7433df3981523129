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

// turn answers a message meant for the bot: store it, post the status
// message (or take over the one a previous run posted), ask the agent, turn
// the status message into the answer, and store the answer while marking the
// update done.
func (b *Bot) turn(ctx context.Context, id int64, m *models.Message) error {
	chat, place := chatOf(m.Chat), placeOf(m)
	log := b.log.With("update_id", id, "chat_id", chat.ID)
	if _, err := b.db.SaveUserMessage(ctx, chat, b.userMessage(id, m)); err != nil {
		return err
	}
	status, err := b.beginStatus(ctx, id, place, m.ID)
	if err != nil {
		return err
	}
	history, err := b.db.History(ctx, place, b.cfg.HistoryLimit)
	if err != nil {
		return err
	}
	started := time.Now()
	out, err := b.agent.Run(ctx, agent.Input{Bot: b.me, Chat: chat, Place: place, History: history})
	if err != nil {
		return b.turnFailed(ctx, log, id, status, err)
	}
	ids, err := status.Finish(ctx, out.Text)
	if err != nil {
		return err
	}
	answer := ryo.Message{Place: place, Kind: ryo.KindAssistant, Text: out.Text, TelegramID: ids[0],
		ReplyTo: m.ID, UpdateID: id, Metadata: b.answerMetadata(out, ids, time.Since(started))}
	if _, err := b.db.FinishTurn(ctx, answer); err != nil {
		return err
	}
	log.Info("turn answered", "took", time.Since(started).Round(time.Millisecond),
		"prompt_tokens", out.Usage.PromptTokens, "reply_tokens", out.Usage.ReplyTokens, "parts", len(ids))
	return nil
}

// beginStatus posts the turn's status message, or takes over the one an
// interrupted run of the same turn posted, and remembers it.
func (b *Bot) beginStatus(ctx context.Context, id int64, place ryo.Place, replyTo int) (*stages.Status, error) {
	adopt, err := b.db.TurnStatus(ctx, id)
	if err != nil {
		return nil, err
	}
	status, err := stages.Begin(ctx, b.tg, place, replyTo, adopt)
	if err != nil {
		return nil, err
	}
	if status.ID() != adopt {
		if err := b.db.SaveTurnStatus(ctx, id, place, status.ID()); err != nil {
			return nil, err
		}
	}
	return status, nil
}

// turnFailed tells the person why there is no answer, where the answer would
// have been, and marks the update failed. Shutdown and a lost database are
// not the turn's failure: the update is left to be resumed.
func (b *Bot) turnFailed(ctx context.Context, log *slog.Logger, id int64, status *stages.Status, err error) error {
	if ctx.Err() != nil || errors.Is(err, memory.ErrUnavailable) {
		return err
	}
	log.Error("turn failed", "code", ryo.ErrorCode(err), "err", err)
	if ferr := status.Fail(ctx, ryo.ErrorMessage(err)); ferr != nil {
		return ferr
	}
	return b.db.FinishUpdate(ctx, id, memory.StateFailed, ryo.ErrorCode(err)+": "+err.Error())
}

func (b *Bot) answerMetadata(out agent.Output, ids []int, took time.Duration) json.RawMessage {
	meta, _ := json.Marshal(map[string]any{
		"model":       b.model,
		"message_ids": ids,
		"duration_ms": took.Milliseconds(),
		"usage": map[string]any{
			"prompt_tokens":  out.Usage.PromptTokens,
			"reply_tokens":   out.Usage.ReplyTokens,
			"load_ms":        out.Usage.LoadDuration.Milliseconds(),
			"prompt_ms":      out.Usage.PromptDuration.Milliseconds(),
			"reply_ms":       out.Usage.ReplyDuration.Milliseconds(),
			"model_total_ms": out.Usage.TotalDuration.Milliseconds(),
		},
	})
	return meta
}
