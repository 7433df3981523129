// Package modelpool spreads model requests over several model servers.
//
// In the flow of a turn, the agent hands a ryo.ModelRequest to Pool.Chat as
// it would to one server. The pool sends it to the least-loaded healthy
// server that has the model asked for, never to one already answering as
// many requests as its limit allows (Ollama's OLLAMA_NUM_PARALLEL): when
// every server that could answer is full, the request waits in line, first
// come first served, no longer than its context allows.
//
// A server that fails before the first token of an answer (refused
// connection, a 5xx, no first token in time, a stream that ends empty) is
// marked down and the request moves on to the next server: the person
// sees only a little delay. If it must wait for another server, it waits
// at the place its first arrival gave it, ahead of those that came later. Once a token has gone out, a failure is the
// request's error as it is with one server; the answer is never started
// twice. A server marked down is probed, from half a second apart and
// doubling up to 30 s, until it answers, and then takes requests again.
// The doubling goes on across its returns until it answers a request: a
// server that answers probes but fails every chat costs one request a
// failover every 30 s at most, not every half second.
// When no server is up, the request fails at once with the error of a
// model server out of reach (ryo.EUNAVAILABLE of ryo.Model).
//
// Which models each server has is read from it at start and every
// Config.Refresh (Server.Models); a server that says it lacks a model it
// was thought to have is read again. A server whose list is not known
// yet is thought to have every model.
//
// A member is any Server: Chat, Models and Probe. *ollama.Client is one,
// and so is an OpenAI-compatible server as openai.Member;
// a member that also lists its models with their capabilities (Catalog) or
// embeds texts (Embedder) serves /model, photos and recall by meaning.
package modelpool
