package memory

// leaderLock is the advisory lock key the leader among the replicas holds
// while it polls Telegram, on its replica's connection: two pollers would
// take each other's updates. The lock is per schema (the second key is the
// schema's hash), as the schema holds the inbox. A killed leader's lock
// goes with its connection, at once.
const leaderLock int32 = 0x72796f01
