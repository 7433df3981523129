// Package intake takes updates in from Telegram and hands them on only
// once they can be kept, so that none is lost to a crash or a database
// outage.
//
// The Poller runs its own long-poll loop: a batch is confirmed to Telegram
// by the offset of the next getUpdates call, which is sent only after the
// batch was kept (by the bot, in the PostgreSQL inbox). While it cannot be
// kept, the offset does not move and Telegram keeps the updates.
// (go-telegram/bot's own poller confirms updates before any handler runs,
// which is why it is not used.) Read takes from a raw update only what the
// inbox needs to order it — its id, its kind, its chat — and keeps the bytes
// as they came; an update without an id that can be read cannot be ordered
// nor confirmed on its own, and is handed on apart, for the dead letter.
//
// The Webhook is the second way in, when Telegram posts updates instead:
// it checks the secret_token header in constant time, reads the one update
// a request holds (bounded to 1 MB), and hands it on as the same Batch; it
// answers 200 only once the batch was kept, 500 otherwise, so that
// Telegram posts it again.
//
// What is here is transport: how updates arrive. Ordering, claiming and
// running them is the bot's (its dispatcher), since that is where a turn
// starts.
package intake
