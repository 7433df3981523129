// Package lang holds the languages of ryo's own messages — its replies to
// commands, its buttons and alerts, its status lines, its refusals — and
// prints them in the language a chat chose. What the model writes is not
// translated: it answers in the language it is spoken to; nor are tool
// results, the system prompt or the log.
//
// A message is written once, in English, as the constant format of a
// Printer's Sprintf; the English text is the key its translations are
// found by, gettext's way. Each language is a file of its own (ru.go)
// whose Messages hold the translations: Texts, and Plurals for a message
// whose words follow a count — its forms by CLDR's plural rules (one, few,
// many, other: 1 ответ, 2 ответа, 5 ответов), chosen from the message's
// first integer argument. English has Plurals too, for its singulars. A
// language missing a message prints the English one. Dates are printed
// with Printer.Date, which names months and days in the language.
//
// The bot resolves a chat's Printer once per message, command or press
// (the chat's choice in /settings, else the person's Telegram language,
// else English) and passes it down; stages gets it in its Start. A
// message made where no chat is known — a ryo.Error's Message from the
// model adapter — is translated whole by Printer.Message; a tool's
// explanation of an action finds its Printer in its context (NewContext).
//
// The tests read the source of the packages that talk to people: every
// Sprintf on a Printer must have a constant format that every language
// translates with the same verbs for the same arguments, and no English
// sentence may reach a person any other way.
package lang
