// Package memory is ryo's PostgreSQL store: everything durable lives here.
//
// In the flow of a turn, memory is first and last. The poller stores each
// Telegram update in the inbox (StoreUpdates) before Telegram is told it
// arrived; the dispatcher claims it (ClaimUpdate), the turn stores the user's
// message, remembers its status message (SaveTurnStatus), reads the recent
// history (History), and finally stores the answer and marks the update done
// in one transaction (FinishTurn). An update that is done is never claimed
// again; one left pending or processing by a crash is found again by
// Unfinished at the next start.
//
// Actions the person must confirm (action.go) move between states by
// conditional updates only, so each is decided and run once; their audit
// log is action_events. Long-term memories (memories.go) live on shelves —
// one person's own, or one group's — and every read or delete names its
// shelf, so no query reaches another person's memories; recall ranks by
// rare matching word starts, fused with embedding similarity when vectors
// are stored.
//
// Errors caused by the database being out of reach wrap ErrUnavailable, so
// callers can keep the work and retry it later instead of failing it.
//
// The store is concrete: one file per aggregate, exported methods that open a
// transaction or take a deadline, unexported helpers that take the tx.
package memory
