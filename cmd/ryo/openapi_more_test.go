package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// petRequest is a request as the pet shop received it, byte for byte.
type petRequest struct {
	Method, Path, Query, ContentType, Body string
}

// petShop is the API of testdata/petshop.yaml: each test says how it
// answers. It records every request and wakes wait on every change.
type petShop struct {
	*httptest.Server
	handle func(w http.ResponseWriter, r *http.Request)

	mu      sync.Mutex
	seen    []petRequest
	changed chan struct{}
}

func newPetShop(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *petShop {
	p := &petShop{handle: handle, changed: make(chan struct{})}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *petShop) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.note(func() {
		p.seen = append(p.seen, petRequest{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Get("Content-Type"), string(body)})
	})
	w.Header().Set("Content-Type", "application/json")
	p.handle(w, r)
}

// note changes the shop's state under its lock and wakes wait.
func (p *petShop) note(change func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	change()
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *petShop) requests() []petRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]petRequest(nil), p.seen...)
}

// wait waits, at most 60 s, until cond (called under the lock) holds.
func (p *petShop) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		p.mu.Lock()
		ok, changed := cond(), p.changed
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

// petShopHarness is a harness with the pet shop configured through
// RYO_APIS under its base path /api/v3; changes wait for a ✅. overrides
// is YAML for the overrides: key, or "".
func petShopHarness(t *testing.T, handle func(w http.ResponseWriter, r *http.Request), overrides string) (*harness, *petShop) {
	h := newHarness(t)
	shop := newPetShop(t, handle)
	dir := t.TempDir()
	doc, err := os.ReadFile(filepath.Join("testdata", "petshop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "petshop.yaml"), doc, 0o600)
	config := "apis:\n  - name: petshop\n    document: petshop.yaml\n    base_url: " + shop.URL + "/api/v3\n"
	if overrides != "" {
		config += "    overrides:\n" + overrides
	}
	os.WriteFile(filepath.Join(dir, "apis.yaml"), []byte(config), 0o600)
	h.env["RYO_APIS"] = filepath.Join(dir, "apis.yaml")
	h.env["RYO_CONFIRM"] = "changes"
	return h, shop
}

// promptAfter waits for a message with buttons in chat newer than id.
func (h *harness) promptAfter(chat telegramtest.Chat, id int) telegramtest.Message {
	h.t.Helper()
	var found telegramtest.Message
	h.waitFor("a confirmation prompt", func() bool {
		for _, m := range h.tg.BotMessages(chat.ID) {
			if m.ID > id && hasPrompt(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// Real-shaped pet shop answers.
const (
	doggie = `{"id":10,"name":"doggie","category":{"id":1,"name":"Dogs"},"photoUrls":["https://petshop.example/photos/doggie.jpg"],` +
		`"tags":[{"id":0,"name":"long hair"}],"status":"available"}`
	foundPets = `[{"id":10,"name":"doggie","photoUrls":[],"tags":[{"id":0,"name":"long hair"},{"id":1,"name":"small"}],"status":"available"},` +
		`{"id":12,"name":"Biscuit","photoUrls":[],"tags":[{"id":0,"name":"long hair"},{"id":1,"name":"small"}],"status":"pending"}]`
	rexBody    = `{"name":"Rex","category":{"id":1,"name":"Dogs"},"photoUrls":["https://petshop.example/photos/rex.jpg"],"tags":[{"id":3,"name":"puppy"}],"status":"pending"}`
	rexUpdate  = `{"id":11,"name":"Rex","photoUrls":["https://petshop.example/photos/rex.jpg"],"status":"available"}`
	rexDeleted = `{"code":200,"type":"unknown","message":"11"}`
)

// petShopAnswers answers the five operations of TestPetShopAPI as the
// Swagger Petstore does.
func petShopAnswers(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "GET /api/v3/pet/10":
		io.WriteString(w, doggie)
	case "GET /api/v3/pet/findByTags":
		io.WriteString(w, foundPets)
	case "POST /api/v3/pet":
		io.WriteString(w, `{"id":11,`+rexBody[1:])
	case "PUT /api/v3/pet/11":
		io.WriteString(w, rexUpdate)
	case "DELETE /api/v3/pet/11":
		io.WriteString(w, rexDeleted)
	default:
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"code":1,"type":"error","message":"Pet not found"}`)
	}
}

// Five questions in a private chat, each answered with one operation of
// an OpenAPI 3.0 document: a GET with a path parameter, a GET with array
// query parameters (exploded and not), a POST, a PUT and a DELETE, the
// last three only after the person's ✅. Each request on the wire is the
// document's to the byte, its answer reaches the model, and the reply
// carries it.
func TestPetShopAPI(t *testing.T) {
	h, shop := petShopHarness(t, petShopAnswers, "")
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("petshop_get_pet_by_id", `{"petId":10}`)},
		ollamatest.Reply{Content: envelope("Pet 10 is doggie, a long-haired dog, available.")},
		ollamatest.Reply{Content: command("petshop_find_pets_by_tags", `{"tags":["long hair","small"],"status":["available","pending"]}`)},
		ollamatest.Reply{Content: envelope("Two small long-haired pets: doggie (available) and Biscuit (pending).")},
		ollamatest.Reply{Content: command("petshop_add_pet", `{"body":`+rexBody+`}`)},
		ollamatest.Reply{Content: envelope("Rex is in the store as pet 11, pending.")},
		ollamatest.Reply{Content: command("petshop_update_pet", `{"petId":11,"body":`+rexUpdate+`}`)},
		ollamatest.Reply{Content: envelope("Pet 11, Rex, is available now.")},
		ollamatest.Reply{Content: command("petshop_delete_pet", `{"petId":11}`)},
		ollamatest.Reply{Content: envelope("Pet 11 is gone from the store (the shop said: 11).")},
	)
	h.start()
	if !strings.Contains(h.logs.String(), "api=petshop tools=8 skipped=0") {
		t.Fatalf("start-up did not make the document's eight tools:\n%s", h.logs.String())
	}

	steps := []struct {
		ask, tool, answer string
		confirm           bool
		wire              petRequest
		shown             []string // in the tool result the model read
	}{
		{"Tell me about pet 10", "petshop_get_pet_by_id", "doggie", false,
			petRequest{"GET", "/api/v3/pet/10", "", "", ""}, []string{`"name":"doggie"`, `"long hair"`}},
		{"Any small long-haired pets, available or pending?", "petshop_find_pets_by_tags", "Biscuit (pending)", false,
			petRequest{"GET", "/api/v3/pet/findByTags", "tags=long%20hair&tags=small&status=available,pending", "", ""},
			[]string{`"name":"Biscuit"`, `"name":"doggie"`}},
		{"Add Rex, a puppy, pending", "petshop_add_pet", "pet 11", true,
			petRequest{"POST", "/api/v3/pet", "", "application/json", rexBody}, []string{`"id":11`, `"name":"Rex"`}},
		{"Rex is available now", "petshop_update_pet", "available now", true,
			petRequest{"PUT", "/api/v3/pet/11", "", "application/json", rexUpdate}, []string{`"id":11`, `"status":"available"`}},
		{"Remove pet 11", "petshop_delete_pet", "gone from the store", true,
			petRequest{"DELETE", "/api/v3/pet/11", "", "", ""}, []string{`"message":"11"`}},
	}
	last := 0
	for i, s := range steps {
		q := h.tg.SendText(dm, alice, s.ask)
		if s.confirm {
			p := h.promptAfter(dm, last)
			if n := len(shop.requests()); n != i {
				t.Fatalf("%s: the shop got a request before the ✅", s.tool)
			}
			h.press(dm, alice, p, "✅")
			q = p
		}
		msgs := h.answer(dm, q.ID, s.answer)
		last = msgs[len(msgs)-1].ID
		wire := shop.requests()
		if len(wire) != i+1 {
			t.Fatalf("%s: the shop got %d requests; want %d: %+v", s.tool, len(wire), i+1, wire)
		}
		if wire[i] != s.wire {
			t.Errorf("%s on the wire:\n got %+v\nwant %+v", s.tool, wire[i], s.wire)
		}
		shown := h.lastShown(2*i + 1)
		if !strings.HasPrefix(shown, "__tool_result__ "+s.tool+" ") || !strings.Contains(shown, `"status":"ok"`) {
			t.Errorf("%s: the model was shown %q; want its result", s.tool, shown)
		}
		for _, want := range s.shown {
			if !strings.Contains(shown, want) {
				t.Errorf("%s: the model was shown %q; want %s in it", s.tool, shown, want)
			}
		}
	}
}

// Arguments that do not fit an operation's schema — a number as a word, a
// required parameter missing, a field the document does not have — are
// refused by the tool bus as invalid_arguments before any request is
// sent (and before a change is put to the person); the model repairs them
// in the next round and the turn is answered.
func TestPetShopRefusesBadArguments(t *testing.T) {
	h, shop := petShopHarness(t, petShopAnswers, "")
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("petshop_get_pet_by_id", `{"petId":"ten"}`)},
		ollamatest.Reply{Content: command("petshop_get_pet_by_id", `{"petId":10}`)},
		ollamatest.Reply{Content: envelope("Pet 10 is doggie.")},
		ollamatest.Reply{Content: command("petshop_find_pets_by_tags", `{"status":["available"]}`)},
		ollamatest.Reply{Content: command("petshop_find_pets_by_tags", `{"tags":["long hair","small"],"status":["available","pending"]}`)},
		ollamatest.Reply{Content: envelope("doggie and Biscuit match.")},
		ollamatest.Reply{Content: command("petshop_add_pet", `{"body":{"name":"Rex","photoUrls":[],"colour":"brown"}}`)},
		ollamatest.Reply{Content: command("petshop_add_pet", `{"body":`+rexBody+`}`)},
		ollamatest.Reply{Content: envelope("Rex is in the store as pet 11.")},
	)
	h.start()
	turns := []struct {
		ask, tool, refused, answer string
		confirm                    bool
		wire                       string // the repaired call's path
	}{
		{"Tell me about pet ten", "petshop_get_pet_by_id", "petId", "doggie", false, "/api/v3/pet/10"},
		{"Any small long-haired pets?", "petshop_find_pets_by_tags", "tags", "Biscuit", false, "/api/v3/pet/findByTags"},
		{"Add Rex, he is brown", "petshop_add_pet", "colour", "pet 11", true, "/api/v3/pet"},
	}
	last := 0
	for i, turn := range turns {
		q := h.tg.SendText(dm, alice, turn.ask)
		if turn.confirm {
			p := h.promptAfter(dm, last)
			if n := len(shop.requests()); n != i {
				t.Fatalf("%s: the shop got a request before the ✅", turn.tool)
			}
			if a := h.action(p); !strings.Contains(string(a.Args), "pending") {
				t.Fatalf("%s: the person was asked about %s; want the repaired call", turn.tool, a.Args)
			}
			h.press(dm, alice, p, "✅")
			q = p
		}
		msgs := h.answer(dm, q.ID, turn.answer)
		last = msgs[len(msgs)-1].ID
		refused := h.lastShown(3*i + 1)
		if !strings.HasPrefix(refused, "__tool_result__ "+turn.tool+" ") || !strings.Contains(refused, `"code":"invalid_arguments"`) ||
			!strings.Contains(refused, turn.refused) {
			t.Errorf("%s: the model was shown %q; want invalid_arguments naming %s", turn.tool, refused, turn.refused)
		}
		if shown := h.lastShown(3*i + 2); !strings.Contains(shown, `"status":"ok"`) {
			t.Errorf("%s: after the repair the model was shown %q", turn.tool, shown)
		}
		wire := shop.requests()
		if len(wire) != i+1 || wire[i].Path != turn.wire {
			t.Fatalf("%s: the shop got %+v; want only the repaired call, to %s", turn.tool, wire, turn.wire)
		}
	}
	metrics := scrape(t, h)
	for _, turn := range turns {
		series := fmt.Sprintf(`ryo_tool_errors_total{code="invalid_arguments",tool=%q}`, turn.tool)
		if v, ok := sample(metrics, series); !ok || v != 1 {
			t.Errorf("%s = %v (shown: %v); want 1", series, v, ok)
		}
	}
}

// An answer longer than the 64 KiB ryo reads reaches the model as the
// whole items that fit, marked as cut; an answer that is not JSON though
// it says so, as a short bad_response error. Both turns are answered.
func TestPetShopOversizedAndBrokenAnswers(t *testing.T) {
	var inventory strings.Builder
	inventory.WriteString(`{"available":231,"pending":12,"sold":87`)
	for i := 0; inventory.Len() <= 80<<10; i++ {
		fmt.Fprintf(&inventory, `,"status-%05d":%d`, i, i%97)
	}
	inventory.WriteString("}")
	h, _ := petShopHarness(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v3/store/inventory":
			io.WriteString(w, inventory.String())
		case "/api/v3/store/order/7":
			io.WriteString(w, `{"id":7,"petId":10,"quantity":1,"shipDate":"2026-11-27T09:00:00.000Z","status":"plac`)
		}
	}, "")
	h.llm.Enqueue(
		ollamatest.Reply{Content: command("petshop_get_inventory", `{}`)},
		ollamatest.Reply{Content: envelope("231 pets are available, 12 pending, 87 sold.")},
		ollamatest.Reply{Content: command("petshop_get_order_by_id", `{"orderId":7}`)},
		ollamatest.Reply{Content: envelope("The shop's answer about order 7 could not be read.")},
	)
	h.start()

	q := h.tg.SendText(dm, alice, "How many pets are available?")
	h.answer(dm, q.ID, "231 pets are available")
	shown := h.lastShown(1)
	if !strings.Contains(shown, `"status":"ok"`) || !strings.Contains(shown, "longer than 65536 bytes") ||
		!strings.Contains(shown, `"available":231`) || len(shown) > 20<<10 {
		t.Errorf("the model was shown %d bytes: %.300q…; want at most 20 KiB, the first items, marked as cut", len(shown), shown)
	}

	q = h.tg.SendText(dm, alice, "Where is order 7?")
	h.answer(dm, q.ID, "could not be read")
	shown = h.lastShown(3)
	if !strings.Contains(shown, `"status":"error"`) || !strings.Contains(shown, `"code":"bad_response"`) || len(shown) > 1<<10 ||
		strings.Contains(shown, "2026-11-27") {
		t.Errorf("the model was shown %q; want a short bad_response error", shown)
	}
}

// Ten people ask in their private chats at once; the ten calls are at the
// shop together (it answers none until all ten arrived), and each person
// is answered with their own order. The tracking each asks for next never
// answers: its own deadline (300 ms, set in RYO_APIS) ends all ten, the
// model reads a timeout and every turn is answered.
func TestPetShopTenChatsAtOnce(t *testing.T) {
	const people = 10
	allIn := make(chan struct{})
	guard, cancelGuard := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancelGuard()
	var shop *petShop
	orders, trackings, trackingsEnded, stuck := 0, 0, 0, false
	order := regexp.MustCompile(`^/api/v3/store/order/(\d+)(/tracking)?$`)
	h, shop := petShopHarness(t, func(w http.ResponseWriter, r *http.Request) {
		m := order.FindStringSubmatch(r.URL.Path)
		if m == nil {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		if m[2] != "" {
			shop.note(func() { trackings++ })
			<-r.Context().Done() // ryo gives up first
			shop.note(func() { trackingsEnded++ })
			return
		}
		shop.note(func() {
			if orders++; orders == people {
				close(allIn)
			}
		})
		select {
		case <-allIn:
		case <-guard.Done():
			shop.note(func() { stuck = true })
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var id int
		fmt.Sscan(m[1], &id)
		fmt.Fprintf(w, `{"id":%d,"petId":%d,"quantity":1,"shipDate":"2026-11-27T09:00:00.000Z","status":"approved","complete":false}`, id, id-990)
	}, "      get_order_by_id: {timeout: 90s}\n      track_order: {timeout: 300ms}\n")
	h.env["RYO_WORKERS"] = fmt.Sprint(people)
	asked := regexp.MustCompile(`order #(\d+)`)
	petOf := regexp.MustCompile(`"petId":(\d+)`)
	h.llm.Handle(func(r ollamatest.Request) ollamatest.Reply {
		var id, pet string
		for _, msg := range r.Messages {
			if m := asked.FindStringSubmatch(msg.Content); msg.Role == "user" && m != nil {
				id = m[1]
			}
			if m := petOf.FindStringSubmatch(msg.Content); strings.HasPrefix(msg.Content, "__tool_result__ petshop_get_order_by_id ") && m != nil {
				pet = m[1]
			}
		}
		last := r.Messages[len(r.Messages)-1].Content
		switch {
		case strings.HasPrefix(last, "__tool_result__ petshop_get_order_by_id "):
			return ollamatest.Reply{Content: command("petshop_track_order", `{"orderId":`+id+`}`)}
		case strings.HasPrefix(last, "__tool_result__ petshop_track_order "):
			return ollamatest.Reply{Content: envelope(fmt.Sprintf("Order #%s for pet %s is approved; its tracking is not answering.", id, pet))}
		case id != "":
			return ollamatest.Reply{Content: command("petshop_get_order_by_id", `{"orderId":`+id+`}`)}
		}
		return ollamatest.Reply{Content: envelope("Which order?")}
	})
	h.start()

	chats := make([]telegramtest.Chat, people)
	questions := make([]telegramtest.Message, people)
	for i := range people {
		person := telegramtest.NewUser(fmt.Sprintf("Buyer%d", i), fmt.Sprintf("buyer%d", i))
		chats[i] = telegramtest.PrivateChat(person)
		questions[i] = h.tg.SendText(chats[i], person, fmt.Sprintf("Where is my order #%d?", 1001+i))
	}
	for i := range people {
		want := fmt.Sprintf("Order #%d for pet %d is approved; its tracking is not answering.", 1001+i, 1001+i-990)
		h.waitWithin(90*time.Second, want, func() bool {
			for _, m := range h.tg.BotMessages(chats[i].ID) {
				if m.ReplyTo == questions[i].ID && m.Text == want {
					return true
				}
			}
			return false
		})
	}
	shop.wait(t, "the ten trackings to end", func() bool {
		return trackings >= people && trackingsEnded == trackings
	})
	shop.mu.Lock()
	if stuck || orders != people || trackings != people {
		t.Errorf("the shop saw %d orders asked for (all at once: %v) and %d trackings; want %d of each, at once", orders, !stuck, trackings, people)
	}
	shop.mu.Unlock()
	timeouts := 0
	for _, r := range h.llm.Requests() {
		last := r.Messages[len(r.Messages)-1].Content
		if strings.HasPrefix(last, "__tool_result__ petshop_track_order ") {
			if !strings.Contains(last, `"code":"timeout"`) {
				t.Errorf("the model was shown %q; want a timeout", last)
			}
			timeouts++
		}
	}
	if timeouts != people {
		t.Errorf("the model read %d tracking results; want %d timeouts", timeouts, people)
	}
}
