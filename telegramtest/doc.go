// Package telegramtest is an in-process fake of the Telegram Bot API for tests.
//
// A Server listens on a loopback port (net/http/httptest) and answers the
// Bot API methods ryo uses with Telegram's own semantics: long-polled
// getUpdates with offsets and 409 conflicts, sendMessage and the edit
// methods with Telegram's error texts ("message is not modified", "message
// is too long", "can't parse entities: ..."), sendDocument with its caption
// and file limits, sendPhoto (the upload kept as it came, refused as
// Telegram refuses it: no photo, not a picture, past 10 MB, sides past
// 10,000 pixels together or 20 to 1, a caption past 1,024 characters),
// answerCallbackQuery (once per delivered press), chat
// actions, the commands menu and streaming drafts. Anything that talks HTTP
// can drive it: the go-telegram/bot client (multipart forms), ryo's own
// poller (JSON) or a plain urlencoded POST.
//
// Every call is first checked against the published Bot API (10.1, kept
// in botapi-methods.json): a method Telegram does not have gets its 404
// "Not Found"; a real method the fake does not implement gets a 501 that
// says so; a required parameter left out or empty, or a value that is not
// of the parameter's type (Integer, Float, Boolean, String, an array, an
// object, an uploaded InputFile), gets a 400 in Telegram's words where
// they are known. A parameter the method does not have is refused too,
// although Telegram ignores it, so that typos and parameters Telegram no
// longer reads (reply_to_message_id) show up in tests.
//
// Ids are as large as Telegram's, so that code which keeps them in 32 bits
// fails: update ids start near 10⁹, each chat numbers its messages from a
// base of its own (a few thousand in private chats, 100 000 to 1 000 000
// in groups), and the fixtures below give Telegram-sized ids:
//
//   - NewUser: a person, with an id above 7·10⁹ like recent accounts; a
//     bot's id is the numeric prefix of its token.
//   - PrivateChat: a person's private chat with the bot (same id).
//   - NewSupergroup, NewForum, NewChannel: -100 and ten digits.
//   - NewGroup: a basic group, -4 and nine digits.
//
// Fixtures are pure functions of their names, so tests can declare them
// before a Server exists.
//
// A test plays the user and the network around the bot:
//
//   - SendText, EditText and PushUpdate put updates in the queue the bot
//     polls, as a Telegram user (or a broken client) would. SendPhoto,
//     SendDocument and SendRecording (a voice note, an audio file or a
//     video note, in Telegram's shapes) send files whose file_id getFile
//     knows, and whose bytes then download.
//   - CreateTopic makes a topic in a forum as a person does: a
//     forum_topic_created service message whose id is the topic's
//     message_thread_id. Messages sent InThread(topic.ThreadID) carry it
//     and is_topic_message, and reply to that service message unless they
//     reply to another one; messages of the General topic carry neither.
//     The bot's messages with a message_thread_id land in that topic, and
//     one naming no topic is refused with "message thread not found".
//   - Press has a user press an inline button the bot's message shows now,
//     and fails if there is none, so a test can prove an edit removed a
//     keyboard; PressForged sends any data, as a modified client could.
//   - Messages, BotMessages, Calls and Commands show what the bot did, so
//     a test can check what the user finally sees; Message.Buttons reads
//     a keyboard, Message.Document a sent file, Message.Photo a sent
//     picture (its bytes, to decode), Message.Entities the
//     formatting (where, as in Telegram, a link to tg://user?id=N is a
//     text_mention of that person), and CallbackAnswer how a press was
//     answered.
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
//	srv := telegramtest.NewServer(telegramtest.Options{Token: "7012345678:AAE-test"})
//	defer srv.Close()
//	b, _ := bot.New("7012345678:AAE-test", bot.WithServerURL(srv.URL()), bot.WithSkipGetMe())
//
// Where the fake is knowingly stricter than Telegram it says so in the error
// text: a bare "&" in HTML is rejected (Telegram keeps it as text) so that
// missing escaping shows up in tests. Telegram's flood limits are
// approximate and only partly published; the fake's are an exact model of
// them, described at Limits.
package telegramtest
