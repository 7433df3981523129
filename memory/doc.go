// Package memory is ryo's PostgreSQL store: everything durable lives here.
//
// In the flow of a turn, memory is first and last. The bot stores each
// Telegram update in the inbox (StoreUpdates) before Telegram is told it
// arrived; the dispatcher claims it (ClaimUpdate), the turn stores its sender
// and reads what it may need in one round trip (StartTurn), stores the user's
// message, takes the tool they chose and reads the recent history in one more
// (OpenTurn), remembers its status message (SaveTurnStatus), remembers the model's answer with what it cost and its
// trace in one batch before it is delivered (SaveAnswered), and finally
// stores the delivered answer and marks the update done in one statement
// (FinishTurn, FinishAnswer). An update that is done is never claimed
// again; one left pending or processing by a crash is found again by
// Unfinished at the next start.
//
// One update never holds up the others (deadletter.go). An update the inbox
// refuses is stored in the dead letter instead, raw bytes and all, and the
// rest of its batch goes on; one whose handling fails for good (FailUpdate)
// waits there too, until Revive gives it back to the inbox. What
// PostgreSQL refuses in JSON and text but Telegram or a model may send
// (U+0000, bytes that are not UTF-8, lone surrogates) is stored as U+FFFD.
//
// Every statement takes Telegram's 64-bit ids: a parameter PostgreSQL
// would type from a literal beside it (compared with 0, or inside nullif
// with 0) is cast to bigint, and
// the stores tests open check every statement they run (ParamCheck).
//
// Tool results (tool.go) are stored under their call's idempotency key,
// passed explicitly and unique among tool results, so a call's result is
// stored once and found again by its key. The files a tool made for the
// person — a chart — are stored with its result, in the same transaction
// (attachment.go), and read back by the turn that delivers them
// (TurnAttachments); they go with their message, and with their turn's
// update when the inbox is swept. What a turn did, step by step, is
// stored with its answer (trace.go, SaveAnswered), bounded and with the
// values of secret-named fields, parameters and headers redacted however
// they are written, for the inspector to read back
// (TraceOf); it too goes with its update. Actions the person must confirm
// (action.go, ryo.Action) move between states by conditional updates only,
// so each is decided once; their result is stored under the action's own
// key, and their audit log is action_events. Long-term memories (memories.go) live on shelves —
// one person's own, or one group's — and every read or delete names its
// shelf, so no query reaches another person's memories; recall ranks by
// rare matching word starts, fused with embedding similarity when vectors
// are stored.
//
// People (user.go) are stored as Telegram last showed them. A username
// belongs to one account at a time but moves, so each is kept with when
// it was last seen (the date of the message it came with): the newest
// sighting holds it, older holders lose it, and UsersNamed returns more
// than one person only when it cannot tell them apart.
//
// Nothing is kept forever by accident (retention.go). Sweep deletes, in
// small batches of their own, what is past its retention: finished inbox
// updates (with their turns, their traces and their files), dead letters retried long ago, paged lists'
// views, ended actions with their audit log, expired memories, and group
// messages kept as context only (SaveContextMessage). What waits — a
// pending update, a dead letter no admin has retried, an action held for
// a yes or running — and the conversations' turns are never swept.
//
// What ryo keeps about one person (person.go) is counted (Footprint),
// deleted (ForgetPerson, for /forgetme: in batches, their user row last,
// their messages going with it) and handed to them (Export, for /export,
// within a budget that keeps the newest).
//
// Errors caused by the database being out of reach are
// ryo.Unavailable(ryo.Database), so callers can keep the work and retry it
// later instead of failing it. The time every statement writes and
// compares with comes from one ryo.Clock (DB.Clock).
//
// The store is concrete: one file per aggregate, exported methods that open a
// transaction or take a deadline, unexported helpers that take the tx.
package memory
