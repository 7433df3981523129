// Package metrics counts what ryo does, for Prometheus to scrape from
// /metrics.
//
// It has no part in the flow of a turn: the parts that do the work tell it
// what happened, through small observer interfaces of their own — the tool
// bus each call it ran (toolbus.Observer), the delivery engine and the
// poller each call to Telegram (delivery.Observer), the bot how each turn
// ended and how long its phases took (bot.Metrics) — and the model is
// wrapped so that every call's tokens are counted (Model). Metrics
// implements them all; main builds one on a prometheus.Registry of its own
// and hands it to each part. What is kept in PostgreSQL — the inbox, the
// actions waiting for a yes, the dead letter — is read when Prometheus
// scrapes (Backlog), under a deadline, so a scrape never hangs on a
// database that is away.
//
// Every label takes a bounded set of values: tool names come from the
// registry (a name the model makes up is "(unknown)"), Telegram methods
// and outcomes from fixed lists, error codes are normalised and their
// number capped. No chat id, user id or text ever becomes a label.
package metrics
