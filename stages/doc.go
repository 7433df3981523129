// Package stages shows a turn to the person while it runs.
//
// In the flow of a turn, stages owns the status message: Begin posts it at
// once, as a reply to the person's message, in the same forum topic; the
// turn then either Finishes, which turns the status message into the answer
// (further parts of a long answer follow as replies), or Fails, which turns it
// into a short explanation. A turn resumed after a restart adopts the status
// message it posted before instead of posting a second one, so an answer
// lands once, in the same place.
//
// stages talks to Telegram only through the small Messenger interface that
// the bot implements.
package stages
