// Package bot is ryo's Telegram adapter: it takes updates in, decides what
// each one is, and sends what the person sees.
//
// Intake is durable: the intake package polls Telegram and hands each
// batch on; the bot stores it in the PostgreSQL inbox before the next poll
// confirms it to Telegram. One update the inbox refuses must not hold up
// every chat behind it, as Telegram would send its batch again forever: it
// is kept in the dead letter instead (memory's StoreUpdates), logged once,
// confirmed, and its sender told; the rest of the batch goes on. Updates
// whose handling failed for good wait there too; admins list and retry them
// with /deadletter (cmd_deadletter.go), and updates retried from the command
// line are picked up by a rescan of the inbox every few seconds.
//
// With Config.WebhookURL the bot sets the webhook at start instead of
// polling (webhook.go), and Webhook, served by main, stores each posted
// update the same way before it answers 200; while the bot starts or stops
// posts are answered 500 and Telegram sends them again. Without it the bot
// deletes any webhook at start, keeping its updates, and polls.
//
// The dispatcher (dispatch.go) runs the updates of one chat strictly in order,
// one at a time, and different chats in parallel on a bounded pool. Each
// update is claimed in the inbox before it runs and marked done after; one
// left unfinished by a crash is picked up again at the next start, and one
// that is done is never run twice. While the database or Telegram is away an
// update waits and is tried again, giving its worker to other chats
// meanwhile. The worker an update runs in is passed along with it (the job,
// and the turn or command it starts), and given back explicitly while
// Telegram takes its turn (worker.idle). A panic is recovered, logged with its stack, the update marked
// failed (and kept in the dead letter) and the person told something went
// wrong, in the status message.
//
// What the bot has shown the person is written down as it happens (the turns
// table: the status message or reply, the answer, the parts of a long one,
// and the files the turn's tools made — a chart — which follow the answer,
// a picture as a photo, loaded from where its tool's result stored them;
// one the chat will not take is replaced by a line that says so),
// so that an update run again does not show anything twice. A message is
// never sent again after a failure that leaves it unclear whether Telegram
// took it; an edit, which is harmless to repeat, is.
//
// Every call to Telegram but getUpdates goes through the delivery package,
// the one place that knows Telegram's flood limits. A turn waiting for it
// gives its worker to other chats meanwhile.
//
// Commands are one file each (cmd_<name>.go: the command's name, help,
// who may run it and where its answer may be shown, beside what it does),
// registered with one line in command.go. A command whose answer is
// private (people's ids and memories, other chats' messages) says so in
// its definition; runCommand answers it in a group with a button that
// opens the private chat, where /start <name> runs it.
//
// Routing (route.go) decides what each update is in one place, classify,
// which reads nothing but the update: a command for this bot, a message
// meant for the bot (a turn, turn.go), group text kept as context, media it
// answers politely that it cannot read, a button press, the bot's own
// membership, a person's edit of a text message (edit.go), a group become
// a supergroup (its settings go to the new id, cmd_settings.go) — or
// ignored on purpose, with the reason logged (edits of captions, channel posts, business messages, other bots, service messages, kinds it
// does not know). In groups the bot answers only when mentioned by
// @username or replied to — unless the group's answer mode (/settings,
// answermode.go), applied right after classify, has it answer every
// message or only commands; in a forum topic every message replies to the
// topic's creation, which is no reply to anyone. A message sent on behalf
// of a chat — an anonymous admin, someone writing as their channel — comes
// from that chat, whose id stands for the person; a linked channel's
// automatic forward is context, never a question. go-telegram's models are
// older than the Bot API: an update that does not decode whole is read
// field by field (decode.go), the fields left out named in the log. A turn is shown
// live by stages, which talks to Telegram through delivery.
//
// An answer carries buttons under its last text message, all made by one
// function (answerbuttons.go): 🔄 under the newest answer of a place. A
// press on it (regenerate.go) and an edit of the message being answered or
// just answered (edit.go) run a turn keyed by their own update that
// replaces the answer in place: the turn shows itself in the old answer's
// (or the cancelled turn's) message (stages.Start.InPlace), the model sees
// the history without the old answer, and the new answer takes the old
// one's place in the history in one transaction. Both run beside their
// chat's queue first, like a stop, and go on in it; edits are judged there
// one at a time, so that of many edits of a message the last is answered.
//
// A recording meant for the bot — a voice note, an audio file, a video
// note — is a turn like text (voice.go): refused with one sentence before
// anything is downloaded when no transcription server is set up or it is
// too long or large, else transcribed in the status message before the
// model is asked, its transcript stored as the message's text so that a
// turn run again never transcribes twice.
//
// Actions that wait for a person's yes have one home, action.go: the
// model's (a turn ends with its held call) and the commands' (/forget;
// /forgetme, which runs forget_me; and an admin's /memory forget, which
// runs forget_any; an admin's /knowledge delete, which runs
// knowledge_delete — tools of the bot's own registry the model never sees)
// are made by one newAction and stored with the turn's answer, then shown
// in a prompt with ✅ Confirm and ❌ Cancel whose buttons carry only an
// opaque id. Presses run beside their
// chat's queue, with workers of their own, so they are answered at once
// even while long turns hold every worker. A press is loaded, judged by a
// pure function (judgePress: only the person who asked, someone who speaks
// for the chat that asked, or an admin when allowed), decided by one
// conditional update in the database, so it is taken once, and followed
// as its outcome says (outcomeOf). After the yes the tool runs through the
// tool bus its action's origin names, and a model's conversation goes on
// in a turn keyed by the press, at the end of the chat's queue; after the
// no, or at expiry, a cancelled result tells the model. A sweep expires
// old requests and edits every decided prompt to show its outcome.
//
// A running turn's status message carries ⏹ Stop (stop.go): its press, and
// /stop, run beside the chat's queue like any press, find the turn in the
// table of turns running here, and end its model call with errStopped —
// or the transcription of a recording before it; what the model had
// written is the answer, marked stopped. A stop told "Stopping" stops:
// the turn settles whether it was stopped once, as its model call ends.
//
// Before a turn for a message asks the model, its person's quota is
// checked (quota.go) against their answers of the last day and their
// turns still running, in any chat; a turn that passes holds one answer
// until its usage is recorded, under the same lock as the check, so that
// questions sent at once in several chats cannot all pass on the last one.
//
// Every step the agent reports is also recorded for the inspector
// (trace.go): each model call and each tool call, stored bounded with
// the turn's answer, before it is delivered. An answer that used tools
// carries 🔍 (answerbuttons.go); its press is judged on the stored trace
// alone and sends the trace to the presser's private chat, never to a
// group (inspect.go, inspectview.go): to each presser once a minute, its
// message and then its file each written down as it goes out, so that a
// press run again sends only what is missing.
//
// What is kept only for a while is swept at start and every hour
// (retention.go, with memory's Sweep); the log counts what went. A person
// takes what ryo keeps about them with /export, and has it deleted with
// /forgetme; both only in a private chat.
//
// Admins feed the knowledge base (cmd_knowledge.go): a file sent with
// /knowledge add as its caption — a caption is read for a command as a
// text is — or answered with it, downloaded within its bound, read and
// cut into passages by package knowledge, embedded when an embedding
// model is configured, and stored for the group it was sent in, or, from
// a private chat, for everyone.
//
// ryo's own words reach people through a lang.Printer, resolved once per
// message, command or press by words.go — the chat's language from
// /settings, else the person's Telegram language, else English — and
// carried along: a command's call, a turn's talk (and its stages.Start),
// a press's handler. A button's alert speaks the presser's language; a
// prompt edited later speaks its requester's.
//
// SDK types (models.Update and friends) stay in this package and the two
// under it: they are translated to ryo types at the edge (convert.go).
package bot
