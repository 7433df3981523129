// Package stages shows a turn to the person while it runs.
//
// In the flow of a turn, the bot calls Begin as soon as it knows the
// message is for it. Begin posts the status message at once, as a reply to
// the person's message, in the same forum topic, and keeps "typing…"
// alive every four seconds. The agent then reports each step of the turn
// to Observe, and the status message follows it: thinking (with the model
// call and the time so far), running a tool (its name and a summary of its
// arguments), each tool done or failed (with its time), waiting for the
// person's confirmation, and writing — the reply as the model produces it,
// read out of the unfinished envelope. In private chats the reply streams
// into a Telegram draft instead, and falls back to the status message where
// drafts do not work.
//
// Progress is shown at a pace that suits the chat and the model (pace.go):
// Telegram allows about one message a second in a chat and twenty a minute
// in a group, edits and drafts included, so progress never takes the room
// the answer needs. The status text changes only when something happens or
// the elapsed time reaches the next step of 5 or 15 seconds.
//
// The turn ends in one of three ways. Finish delivers the answer, rendered
// for Telegram and split into parts: a quick answer replaces the status
// message; a slow one arrives as a new message, which notifies the person,
// and the status message collapses to one line saying how long it took and
// which tools ran. An answer of more than three parts would fill the chat:
// its first part comes as the message, saying that the whole answer is in
// the file below, and the whole answer follows as a Markdown file,
// answer-<turn id>.md. Each message and the file are recorded as they are
// sent, so that a delivery resumed after a crash sends none of them twice.
// Fail turns the status message into a short explanation.
// Pause marks it paused when the bot shuts down or loses its database in
// the middle of a turn; the turn resumes later, takes over the same status
// message (Begin with Adopt) and shows it picked up again. A status message
// is therefore never left showing progress. When the answer is ready before
// Telegram had room for the status message, the status message is never
// sent: the answer goes out in its place.
//
// The answer's buttons go under its last text message, whichever way it
// came, and again on a resumed delivery (Finish's buttons). A turn that
// replaces an earlier answer (Start.InPlace: a regenerate, an edited
// question) adopts that answer's message, shows its progress there without
// drafts, and always delivers its answer into it.
//
// stages talks to Telegram only through the Messenger interface, which the
// bot implements with its delivery engine; time comes from a ryo.Clock, so
// tests run turns on a manual clock.
package stages
