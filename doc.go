// Package ryo holds the vocabulary every part of the bot shares: chats, users,
// messages, the model request and reply; actions held for a person's yes,
// with their states, origins and audit events; memories and the shelves that
// keep them apart (ShelfOf: whose memories a conversation sees); the one
// Clock every part reads the time from; and the error kinds that decide what
// a user is told when something goes wrong — among them the one kind of a
// dependency out of reach (Unavailable), naming the database, Telegram or
// the model server, which decides whether work waits and is tried again.
//
// The root package imports nothing from the project. Each subpackage adapts one
// technology (Telegram in bot, PostgreSQL in memory, Ollama in ollama) or owns
// one stage of a turn (agent, stages, toolbus), and translates to and from these
// types at its edge, so that SDK types never travel between packages.
package ryo
