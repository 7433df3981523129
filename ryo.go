// Package ryo holds the vocabulary every part of the bot shares: chats, users,
// messages, the model request and reply, and the error kinds that decide what a
// user is told when something goes wrong.
//
// The root package imports nothing from the project. Each subpackage adapts one
// technology (Telegram in bot, PostgreSQL in memory, Ollama in ollama) or owns
// one stage of a turn (agent, stages, toolbus), and translates to and from these
// types at its edge, so that SDK types never travel between packages.
package ryo
