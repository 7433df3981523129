// Command ryo is a self-hosted Telegram agent bot on Ollama and PostgreSQL.
//
// Usage:
//
//	ryo [serve]                              run the bot (the default)
//	ryo migrate                              apply database migrations and exit
//	ryo doctor                               check the configuration, the database, Ollama and Telegram
//	ryo healthcheck                          exit 0 when the running bot's /healthz answers ok
//	ryo deadletter [retry <update id>|all]   list the updates the bot could not handle, or retry them
//
// Settings come from the environment and a .env file in the working
// directory; see .env.example.
//
// This is the one place that wires the parts together: it reads the
// configuration once (config.go), opens the store (memory), the model
// (ollama) and the tools (toolbus, tools), builds the agent and hands all
// of them to the bot, which runs every turn (Main.Run, which the tests run
// too, against the fake Telegram and a real or scripted Ollama). It builds
// the metrics on a registry of its own, hands them to the tool bus, the bot
// and the model, and serves them on /metrics beside /healthz (metrics.go).
// With RYO_WEBHOOK_URL it serves the bot's webhook there too, at the URL's
// path, and makes the webhook's secret at start when none is set.
package main
