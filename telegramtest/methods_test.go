package telegramtest_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

func TestGetMe(t *testing.T) {
	s := newServer(t)
	me, err := newBot(t, s).GetMe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if me.ID != botID || !me.IsBot || me.Username != "ryo_bot" || !me.CanJoinGroups || me.CanReadAllGroupMessages {
		t.Errorf("getMe = %+v", me)
	}
}

func TestSetMyCommands(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	cmds := []models.BotCommand{{Command: "start", Description: "Begin"}, {Command: "forget_me", Description: "Delete my data"}}
	if _, err := b.SetMyCommands(t.Context(), &bot.SetMyCommandsParams{Commands: cmds}); err != nil {
		t.Fatal(err)
	}
	got := s.Commands()
	if len(got) != 2 || got[1] != (telegramtest.BotCommand{Command: "forget_me", Description: "Delete my data"}) {
		t.Errorf("Commands = %+v", got)
	}
	listed, err := b.GetMyCommands(t.Context(), &bot.GetMyCommandsParams{})
	if err != nil || len(listed) != 2 {
		t.Errorf("GetMyCommands = %+v, %v", listed, err)
	}

	bad := []struct {
		cmds []models.BotCommand
		want string
	}{
		{[]models.BotCommand{{Command: "Start", Description: "x"}}, "BOT_COMMAND_INVALID"},
		{[]models.BotCommand{{Command: "start", Description: ""}}, "BOT_COMMAND_INVALID"},
		{[]models.BotCommand{{Command: strings.Repeat("a", 33), Description: "x"}}, "BOT_COMMAND_INVALID"},
		{make101(), "BOT_COMMANDS_TOO_MUCH"},
	}
	for _, tt := range bad {
		_, err := b.SetMyCommands(t.Context(), &bot.SetMyCommandsParams{Commands: tt.cmds})
		if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("err = %v, want %s", err, tt.want)
		}
	}
	if len(s.Commands()) != 2 {
		t.Errorf("rejected lists replaced the menu: %+v", s.Commands())
	}
	if _, err := b.DeleteMyCommands(t.Context(), &bot.DeleteMyCommandsParams{}); err != nil || s.Commands() != nil {
		t.Errorf("after delete: %+v, %v", s.Commands(), err)
	}
}

func make101() []models.BotCommand {
	cmds := make([]models.BotCommand, 101)
	for i := range cmds {
		cmds[i] = models.BotCommand{Command: "c", Description: "d"}
	}
	return cmds
}

func TestSendChatAction(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	if ok, err := b.SendChatAction(t.Context(), &bot.SendChatActionParams{ChatID: aliceChat().ID, Action: models.ChatActionTyping}); !ok || err != nil {
		t.Errorf("typing: %v, %v", ok, err)
	}
	_, err := b.SendChatAction(t.Context(), &bot.SendChatActionParams{ChatID: aliceChat().ID, Action: "dancing"})
	if err == nil || !strings.Contains(err.Error(), "wrong parameter action in request") {
		t.Errorf("dancing: %v", err)
	}
	if c := s.Calls("sendChatAction"); len(c) != 2 || c[0].Params["action"] != "typing" {
		t.Errorf("calls = %+v", c)
	}
}

func TestSendMessageDraft(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	s.SendText(groupChat(), alice(), "hi")
	if ok, err := b.SendMessageDraft(t.Context(), &bot.SendMessageDraftParams{ChatID: aliceChat().ID, DraftID: "7", Text: "Thinking"}); !ok || err != nil {
		t.Errorf("private draft: %v, %v", ok, err)
	}
	if _, err := b.SendMessageDraft(t.Context(), &bot.SendMessageDraftParams{ChatID: aliceChat().ID, DraftID: "7", Text: ""}); err != nil {
		t.Errorf("empty draft text: %v", err)
	}
	_, err := b.SendMessageDraft(t.Context(), &bot.SendMessageDraftParams{ChatID: groupChat().ID, DraftID: "7", Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "TEXTDRAFT_PEER_INVALID") {
		t.Errorf("group draft: %v", err)
	}
	if _, err := b.SendMessageDraft(t.Context(), &bot.SendMessageDraftParams{ChatID: aliceChat().ID, DraftID: "0", Text: "x"}); err == nil {
		t.Error("draft_id 0 accepted")
	}
	if c := s.Calls("sendMessageDraft"); len(c) != 4 || c[0].Params["draft_id"] != "7" || c[0].Params["text"] != "Thinking" {
		t.Errorf("calls = %+v", c)
	}
}

func TestSmallMethods(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	ctx := timeout(t)
	s.SendText(groupChat(), alice(), "hi")
	if ok, err := b.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); !ok || err != nil {
		t.Errorf("deleteWebhook: %v, %v", ok, err)
	}
	info, err := b.GetWebhookInfo(ctx)
	if err != nil || info.URL != "" || info.PendingUpdateCount != 1 {
		t.Errorf("getWebhookInfo = %+v, %v", info, err)
	}
	chat, err := b.GetChat(ctx, &bot.GetChatParams{ChatID: groupChat().ID})
	if err != nil || chat.Title != "Ryo fans" || chat.Type != "supergroup" {
		t.Errorf("getChat = %+v, %v", chat, err)
	}
	if r := postForm(ctx, t, s, "getChat", url.Values{"chat_id": {"5"}}); r.Description != "Bad Request: chat not found" {
		t.Errorf("getChat unknown = %+v", r)
	}
}

func TestWait(t *testing.T) {
	s := newServer(t)
	b := newBot(t, s)
	s.SendText(aliceChat(), alice(), "hi")
	go b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: aliceChat().ID, Text: "later"})
	if err := s.Wait(timeout(t), func() bool { return len(s.BotMessages(aliceChat().ID)) == 1 }); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := s.Wait(ctx, func() bool { return len(s.BotMessages(aliceChat().ID)) == 2 })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
}
