package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
	"github.com/ryo-bot/ryo/toolbus"
)

// A turn that goes wrong everywhere keeps what was written out of its
// trace too: the model calls a tool with arguments that fail validation,
// then the model server fails quoting the prompt, and Telegram refuses a
// message quoting its text. Only error codes reach the spans; the
// bot's token, the marker and the person's name are in none of them.
func TestAFailingTurnsTraceCarriesNoneOfWhatWasWritten(t *testing.T) {
	c := newCollector(t, false)
	h := newHarness(t)
	h.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = c.srv.URL
	const marker = "qz3-hostile-Ж7"
	h.tools = []toolbus.Spec{lookupTool()}
	h.tg.FailNext("sendMessage", 1, telegramtest.APIError{Code: http.StatusBadRequest,
		Description: "Bad Request: can't parse entities: unsupported start tag \"" + marker + "\" at byte offset 3"})
	h.tg.FailNext("editMessageText", 1, telegramtest.APIError{Code: http.StatusBadRequest,
		Description: "Bad Request: can't parse entities: " + marker})
	h.llm.Enqueue(ollamatest.Reply{Content: command("lookup", `{"q":5,"`+marker+`":"`+marker+`"}`)},
		ollamatest.Reply{Status: http.StatusInternalServerError, Error: "llama runner crashed on prompt: look up " + marker},
		ollamatest.Reply{Status: http.StatusInternalServerError, Error: "llama runner crashed on prompt: look up " + marker},
		ollamatest.Reply{Status: http.StatusInternalServerError, Error: "llama runner crashed on prompt: look up " + marker})
	h.start()
	h.tg.SendText(dm, alice, "look up "+marker)
	h.waitFor("the turn over", func() bool {
		s := updateState(t, h.db(), ryo.Place{ChatID: dm.ID})
		return s == memory.StateDone || s == memory.StateFailed
	})
	h.stopMain()

	spans := c.received()
	if len(spans) == 0 {
		t.Fatal("no spans")
	}
	errs := 0
	secrets := []string{marker, alice.FirstName, testToken, "crashed", "parse entities"}
	for _, s := range spans {
		texts := append([]string{s.Name, s.GetStatus().GetMessage()}, values(s.Attributes)...)
		for _, e := range s.Events {
			texts = append(append(texts, e.Name), values(e.Attributes)...)
		}
		if attr(s, "error.type") != nil {
			errs++
		}
		for _, text := range texts {
			for _, secret := range secrets {
				if strings.Contains(strings.ToLower(text), strings.ToLower(secret)) {
					t.Errorf("span %s carries %q: %q", s.Name, secret, text)
				}
			}
		}
	}
	if errs == 0 {
		t.Errorf("no span says what went wrong: %v", names(spans))
	}
	t.Logf("%d spans: %v", len(spans), names(spans))
}
