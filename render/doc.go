// Package render turns what the model wrote into what Telegram shows.
//
// In the flow of a turn, the model's final answer comes here once the turn
// is done: Markdown removes <think> blocks (but not the tags an answer
// shows in code), renders the Markdown into
// Telegram's HTML and cuts the result into messages that fit Telegram's
// limit, and stages sends them, the first in place of the status message
// and the rest as replies. Short plain-text messages, such as a turn's
// status or the reason it failed, go through Text, which escapes them and
// cuts them to fit.
//
// # Rendering
//
// Telegram's HTML knows bold, italic, strikethrough, links, code, code
// blocks and block quotes, and nothing else, so headings become bold
// lines, list items get "•" or their number, and tables become monospace
// text with padded columns. Everything the model wrote is text: raw HTML
// in an answer is shown as written, escaped, never passed through. Markup
// that does not close stays literal, as "2 * 3 * 4" or "**unclosed" should.
//
// Links tell the truth (link.go, host.go). Only an http or https address
// that names its host plainly (not https://bank.com@evil.example) becomes
// a link; any other target, above all tg://user?id=N, which Telegram would
// turn into a mention that notifies that person, is shown as code after
// the link's text. A link whose text names another host than the one it
// opens ("bank.com", "https://bank.com/login", a look-alike in another
// script) is followed by the host it opens, in ASCII: "bank.com (→
// evil.example)".
//
// The Markdown is rendered not to HTML directly but to spans: runs of
// display text, each with the formatting open over it from the outside
// in. A code block or a quote is formatting over every span of its block.
// Any run of spans is written as HTML by closing, between two spans, what
// the second no longer has and opening what it adds, and closing
// everything at the end. So wherever a message is cut, its HTML is valid,
// and a code block cut in two is closed in one message and opened again,
// with its language, in the next.
//
// # Splitting
//
// A message holds at most MaxUnits UTF-16 code units of display text. A
// longer answer is cut where a reader minds it least, trying in turn:
// between two blocks (but not after a heading), at a blank line inside a
// block, at a line break, at a space, at a space inside formatting,
// between two characters, and only as a last resort inside a character
// made of several runes, such as a flag or a family emoji. Among the cuts
// of the best kind it takes the latest that leaves the message more than
// half full — except that a code block that would straddle two messages
// but fits in one goes whole into the next, when the message before it is
// at least a quarter full: code cut in two loses its copy button. A
// message also carries at most MaxEntities pieces of formatting, since
// Telegram drops the formatting past its hundredth. Each message of a cut
// answer ends with a line such as "(2/3)". An answer too long for a few
// messages is sent whole as a file instead, and Lead gives the one message
// that goes with it: the answer's start, cut the same way, ending with a
// note of the caller's instead of "(1/n)".
//
// Part.Plain is exactly the text the HTML shows, so that when Telegram
// refuses the HTML the same message can go out as plain text.
package render
