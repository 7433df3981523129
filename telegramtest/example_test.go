package telegramtest_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo/telegramtest"
)

// A bot polls the fake like it would poll Telegram; the test writes as a
// user, waits for the answer and reads the chat.
func Example() {
	srv := telegramtest.NewServer(telegramtest.Options{Token: "1:T", Bot: telegramtest.User{FirstName: "Ryo"}})
	defer srv.Close()

	greet := func(ctx context.Context, b *bot.Bot, u *models.Update) {
		b.SendMessage(ctx, &bot.SendMessageParams{
			ChatID:    u.Message.Chat.ID,
			Text:      "Hello, <b>" + html.EscapeString(u.Message.From.FirstName) + "</b>",
			ParseMode: models.ParseModeHTML,
		})
	}
	b, err := bot.New("1:T", bot.WithServerURL(srv.URL()), bot.WithSkipGetMe(), bot.WithDefaultHandler(greet))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { b.Start(ctx); close(done) }()

	chat := telegramtest.Chat{ID: 42, Type: "private", FirstName: "Alice"}
	srv.SendText(chat, telegramtest.User{ID: 42, FirstName: "Alice"}, "/start")
	if err := srv.Wait(ctx, func() bool { return len(srv.BotMessages(42)) == 1 }); err != nil {
		fmt.Println(err)
	}
	cancel()
	<-done

	for _, m := range srv.Messages(42) {
		fmt.Printf("%d %s: %s\n", m.ID, m.From.FirstName, m.Text)
	}
	// Output:
	// 1 Alice: /start
	// 2 Ryo: Hello, <b>Alice</b>
}

// Telegram's flood control, injected for one call.
func ExampleServer_FailNext() {
	srv := telegramtest.NewServer(telegramtest.Options{Token: "1:T"})
	defer srv.Close()
	b, _ := bot.New("1:T", bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
	srv.SendText(telegramtest.Chat{ID: 42, Type: "private"}, telegramtest.User{ID: 42, FirstName: "Alice"}, "hi")

	srv.FailNext("sendMessage", 1, telegramtest.TooManyRequests(3))
	_, err := b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: 42, Text: "reply"})
	var flood *bot.TooManyRequestsError
	if errors.As(err, &flood) {
		fmt.Println("retry after", flood.RetryAfter)
	}
	_, err = b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: 42, Text: "reply"})
	fmt.Println(err, len(srv.BotMessages(42)))
	// Output:
	// retry after 3
	// <nil> 1
}
