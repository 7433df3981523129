// Package clocktest is a manual ryo.Clock for tests: time moves only when
// the test moves it, and timers fire in order as it passes them.
//
// In a turn it stands for the one clock every part reads: the bot's
// expiry of actions, the agent's deadlines, the delivery engine's flood
// budgets and the stages' timers all move when the test says so.
package clocktest
