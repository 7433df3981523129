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
	const token = "7012345678:AAE-example" // the bot's id, then its secret
	srv := telegramtest.NewServer(telegramtest.Options{Token: token, Bot: telegramtest.User{FirstName: "Ryo"}})
	defer srv.Close()

	greet := func(ctx context.Context, b *bot.Bot, u *models.Update) {
		b.SendMessage(ctx, &bot.SendMessageParams{
			ChatID:    u.Message.Chat.ID,
			Text:      "Hello, <b>" + html.EscapeString(u.Message.From.FirstName) + "</b>",
			ParseMode: models.ParseModeHTML,
		})
	}
	b, err := bot.New(token, bot.WithServerURL(srv.URL()), bot.WithSkipGetMe(), bot.WithDefaultHandler(greet))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { b.Start(ctx); close(done) }()

	alice := telegramtest.NewUser("Alice", "alice")
	dm := telegramtest.PrivateChat(alice)
	srv.SendText(dm, alice, "/start")
	if err := srv.Wait(ctx, func() bool { return len(srv.BotMessages(dm.ID)) == 1 }); err != nil {
		fmt.Println(err)
	}
	cancel()
	<-done

	for _, m := range srv.Messages(dm.ID) {
		fmt.Printf("%s: %s\n", m.From.FirstName, m.Text)
	}
	// Output:
	// Alice: /start
	// Ryo: Hello, <b>Alice</b>
}

// Telegram's flood control, injected for one call.
func ExampleServer_FailNext() {
	const token = "7012345678:AAE-example"
	srv := telegramtest.NewServer(telegramtest.Options{Token: token})
	defer srv.Close()
	b, _ := bot.New(token, bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
	alice := telegramtest.NewUser("Alice", "alice")
	dm := telegramtest.PrivateChat(alice)
	srv.SendText(dm, alice, "hi")

	srv.FailNext("sendMessage", 1, telegramtest.TooManyRequests(3))
	_, err := b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: dm.ID, Text: "reply"})
	var flood *bot.TooManyRequestsError
	if errors.As(err, &flood) {
		fmt.Println("retry after", flood.RetryAfter)
	}
	_, err = b.SendMessage(context.Background(), &bot.SendMessageParams{ChatID: dm.ID, Text: "reply"})
	fmt.Println(err, len(srv.BotMessages(dm.ID)))
	// Output:
	// retry after 3
	// <nil> 1
}

// A forum topic, made the way a person makes one in Telegram: messages in
// it carry its thread id and reply to its creation message.
func ExampleServer_CreateTopic() {
	srv := telegramtest.NewServer(telegramtest.Options{Token: "7012345678:AAE-example"})
	defer srv.Close()
	alice := telegramtest.NewUser("Alice", "alice")
	team := telegramtest.NewForum("Team")

	topic := srv.CreateTopic(team, alice, "Releases")
	q := srv.SendText(team, alice, "when is the next one?", telegramtest.InThread(topic.ThreadID))
	general := srv.SendText(team, alice, "hello everyone")

	fmt.Println(q.ThreadID == topic.ThreadID, q.ReplyTo == topic.ThreadID)
	fmt.Println(general.ThreadID, general.ReplyTo)
	// Output:
	// true true
	// 0 0
}
