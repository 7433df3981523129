// Package telegramtest is an in-process fake of the Telegram Bot API for tests.
//
// A Server listens on a loopback port (net/http/httptest) and answers the
// Bot API methods ryo uses with Telegram's own semantics: long-polled
// getUpdates with offsets and 409 conflicts, sendMessage and the edit
// methods with Telegram's error texts ("message is not modified", "message
// is too long", "can't parse entities: ..."), sendDocument with its caption
// and file limits, answerCallbackQuery (once per delivered press), chat
// actions, the commands menu and streaming drafts. Anything that talks HTTP
// can drive it: the go-telegram/bot client (multipart forms), ryo's own
// poller (JSON) or a plain urlencoded POST.
//
// A test plays the user and the network around the bot:
//
//   - SendText, EditText and PushUpdate put updates in the queue the bot
//     polls, as a Telegram user (or a broken client) would.
//   - Press has a user press an inline button the bot's message shows now,
//     and fails if there is none, so a test can prove an edit removed a
//     keyboard; PressForged sends any data, as a modified client could.
//   - Messages, BotMessages, Calls and Commands show what the bot did, so
//     a test can check what the user finally sees; Message.Buttons reads
//     a keyboard, Message.Document a sent file, and CallbackAnswer how a
//     press was answered.
//   - Wait blocks until a condition over that state holds, instead of
//     sleeping.
//   - FailNext and SetDown inject Telegram errors (for example 429 with
//     retry_after) and network failures.
//   - Options.Limits turns on flood control: calls over Telegram's limits
//     per chat, per group and over all chats (TelegramLimits) are refused
//     with 429 and retry_after, by a fake clock if the test passes one as
//     Options.Now. Refused lists them, so a test can check that the bot
//     paced itself.
//
// Point the bot at URL() the way it would point at https://api.telegram.org:
//
//	srv := telegramtest.NewServer(telegramtest.Options{Token: "1:T"})
//	defer srv.Close()
//	b, _ := bot.New("1:T", bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
//
// Where the fake is knowingly stricter than Telegram it says so in the error
// text: a bare "&" in HTML is rejected (Telegram keeps it as text) so that
// missing escaping shows up in tests. Telegram's flood limits are
// approximate and only partly published; the fake's are an exact model of
// them, described at Limits.
package telegramtest
