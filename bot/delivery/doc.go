// Package delivery is the one place that knows Telegram's limits: every
// call ryo makes to the Bot API but getUpdates goes through its engine, so
// that the bot is never locked out by flood control.
//
// Each chat has a budget — a token bucket of about one call a second with
// short bursts, and twenty a minute in groups (budget.go) — and all chats
// share one of thirty a second; sends, edits, drafts and chat actions all
// draw on them, and each chat's calls go one at a time, in order. Calls
// are ranked (schedule.go): final answers and prompts first and never
// dropped; then status messages, withdrawn when the answer is ready before
// them; then progress edits and drafts, which merge (the latest wins) and
// are dropped first when the budget is short, keeping headroom for the
// rest; typing last. Chats take turns fairly. A 429 pauses the chat — or
// everything, when it comes for no chat, or from two chats at once asking
// the same wait — for exactly its retry_after; the refused call gives its
// budget back, waits, and goes again, never lost. Telegram's 5xx answers
// and connections never made are retried with backoff; a call that may
// have reached Telegram and would show something twice is not (engine.go).
// Every call has a deadline; an upload's leaves time for its bytes on a
// line of a megabit a second.
//
// Telegram (telegram.go) is the client the rest of ryo uses: one method a
// kind of call, each sent through the engine with its rank. It implements
// stages.Messenger, so a turn's status message and answer go through it;
// answers are sent as HTML from render, and as plain text if Telegram
// refuses the HTML after all; a picture is sent as a photo, and as a file
// if Telegram refuses it as a photo. Errors never carry the bot token (Scrub).
package delivery
