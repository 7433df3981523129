// Package lang holds the languages of ryo's own messages — its replies to
// commands, its buttons, its status lines, its refusals — and prints them
// in the language a chat chose. What the model writes is not translated:
// it answers in the language it is spoken to.
//
// A message is written once, in English, as the format of a Printer's
// Sprintf; the English text is the key its translations are found by. A
// language missing a message prints the English one.
package lang
