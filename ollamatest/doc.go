// Package ollamatest is a fake Ollama server for tests. It speaks Ollama's
// real HTTP wire format, so the real client from
// github.com/ollama/ollama/api works against it unchanged, and ryo's tests
// can run a conversation without a model: each /api/chat request takes the
// next scripted Reply, and the Server records what it was asked.
//
// A Reply can stream an answer in chunks, or fail the way Ollama fails: an
// HTTP status with {"error": ...} before any output, an error line in the
// middle of a stream, or a connection dropped before the done line. Hold
// keeps a request waiting, to test timeouts and cancellation. Like Ollama,
// the fake stops an answer at the request's options.num_predict (a
// streamed chunk counts as a token) and says so with done_reason "length".
//
//	srv := ollamatest.NewServer("llama3.2")
//	defer srv.Close()
//	srv.Enqueue(
//		ollamatest.Reply{Content: "Hello! How can I help?"},
//		ollamatest.Reply{Status: http.StatusInternalServerError, Error: "out of memory"},
//	)
//	u, _ := url.Parse(srv.URL())
//	client := api.NewClient(u, http.DefaultClient)
//	// ... run the code under test with client ...
//	got := srv.Requests()[0].Messages
//
// The endpoints are /, /api/version, /api/tags, /api/show, /api/ps,
// /api/chat and /api/embed. Install names how a model describes itself
// (family, size, capabilities such as "tools", "vision" or "embedding");
// Remove takes it away again, as `ollama rm` does. Embeddings are deterministic 64-dimensional
// unit vectors built from the words of each text, so texts that share
// words are closer. Wait lets a test block until the server reaches a
// state, without sleeping.
package ollamatest
