package telegramtest

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configures a Server.
type Options struct {
	// Token is the bot token the server accepts. Required.
	Token string
	// Bot is the bot's own user, returned by getMe and used as the author of
	// the messages the bot sends. IsBot is forced to true; a zero ID is taken
	// from the token's numeric prefix, and empty names get defaults.
	Bot User
	// CanReadAllGroupMessages is reported by getMe (false = privacy mode on).
	CanReadAllGroupMessages bool
	// Now is the clock for message dates, call times and Limits; nil means
	// time.Now.
	Now func() time.Time
	// Limits, when not nil, makes the server refuse calls over the flood
	// limits with 429 and retry_after, as Telegram does. TelegramLimits
	// returns the published ones.
	Limits *Limits
	// Observe, when set, is told of every call once it is answered, in the
	// goroutine that served it and without the server's lock held: a cheap
	// way for a load test to follow thousands of chats.
	Observe func(Call)
}

// Server is a fake Telegram Bot API. All its methods are safe for
// concurrent use. Create it with NewServer and stop it with Close.
type Server struct {
	opts    Options
	api     botAPI              // every published method, by lowercase name
	methods map[string]endpoint // the ones the fake implements
	http    *httptest.Server
	closed  chan struct{}
	closing sync.Once

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	down    bool
	faults  map[string]*fault
	calls   []Call
	chats   map[int64]*chatLog
	// people are the users seen writing or pressing in pushed updates: one
	// without a private chat the bot may not write to first.
	people   map[int64]bool
	queries  map[string]*callbackQuery // button presses delivered, by id
	queue    updateQueue
	hook     webhook // set by setWebhook; while set, getUpdates is refused
	commands map[string][]BotCommand
	flood    *limiter // nil without Options.Limits

	files     map[string]*servedFile // by file_id: what getFile serves
	fileSeq   int                    // the last file path's number
	downloads []string               // file paths downloaded, in order
}

// handler serves one Bot API method. It is called with s.mu held.
type handler func(s *Server, r *request) (any, error)

// endpoint is a method the fake implements, with its published parameters.
type endpoint struct {
	name   string
	handle handler
	spec   *methodSpec
}

// NewServer starts a fake Bot API server. It panics if opts.Token is empty.
func NewServer(opts Options) *Server {
	if opts.Token == "" {
		panic("telegramtest: Options.Token is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Bot = botUser(opts)
	api := loadBotAPI()
	s := &Server{
		opts:     opts,
		api:      api,
		methods:  endpoints(api),
		closed:   make(chan struct{}),
		changed:  make(chan struct{}),
		faults:   map[string]*fault{},
		chats:    map[int64]*chatLog{},
		people:   map[int64]bool{},
		queries:  map[string]*callbackQuery{},
		queue:    updateQueue{next: firstUpdateID},
		commands: map[string][]BotCommand{},
		files:    map[string]*servedFile{},
		flood:    newLimiter(opts.Limits),
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s
}

// URL returns the API base URL, such as http://127.0.0.1:PORT. Requests go
// to URL()+"/bot"+token+"/"+method, as with https://api.telegram.org.
func (s *Server) URL() string { return s.http.URL }

// Close releases blocked long polls and shuts the server down. It is safe
// to call more than once.
func (s *Server) Close() {
	s.closing.Do(func() {
		close(s.closed)
		s.http.Close()
	})
}

// endpoints lists the methods the fake implements. It panics if one is not
// a published Bot API method, since the fake must answer only what Telegram
// would.
func endpoints(api botAPI) map[string]endpoint {
	list := []endpoint{
		{name: "getMe", handle: (*Server).getMe},
		{name: "getUpdates", handle: (*Server).getUpdates},
		{name: "deleteWebhook", handle: (*Server).deleteWebhook},
		{name: "getWebhookInfo", handle: (*Server).getWebhookInfo},
		{name: "setWebhook", handle: (*Server).setWebhook},
		{name: "getChat", handle: (*Server).getChat},
		{name: "getChatMember", handle: (*Server).getChatMember},
		{name: "sendMessage", handle: (*Server).sendMessage},
		{name: "sendDocument", handle: (*Server).sendDocument},
		{name: "sendPhoto", handle: (*Server).sendPhoto},
		{name: "editMessageText", handle: (*Server).editMessageText},
		{name: "editMessageReplyMarkup", handle: (*Server).editMessageReplyMarkup},
		{name: "deleteMessage", handle: (*Server).deleteMessage},
		{name: "sendChatAction", handle: (*Server).sendChatAction},
		{name: "sendMessageDraft", handle: (*Server).sendMessageDraft},
		{name: "answerCallbackQuery", handle: (*Server).answerCallbackQuery},
		{name: "setMyCommands", handle: (*Server).setMyCommands},
		{name: "getMyCommands", handle: (*Server).getMyCommands},
		{name: "deleteMyCommands", handle: (*Server).deleteMyCommands},
		{name: "getFile", handle: (*Server).getFile},
	}
	m := make(map[string]endpoint, len(list))
	for _, e := range list {
		key := strings.ToLower(e.name)
		if e.spec = api[key]; e.spec == nil || e.spec.name != e.name {
			panic("telegramtest: " + e.name + " is not a Bot API method")
		}
		m[key] = e
	}
	return m
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/file/bot") {
		s.serveFile(w, r)
		return
	}
	p, files, perr := readParams(r)
	if s.refuseWhileDown(r.URL.Path, p) {
		writeBadGateway(w)
		return
	}
	result, call, err := s.handle(r.Context(), r.URL.Path, p, files, perr)
	if s.opts.Observe != nil {
		s.opts.Observe(call)
	}
	if err != nil {
		writeError(w, asAPIError(err))
		return
	}
	writeResult(w, result)
}

// handle routes one request, records it as a Call, applies injected
// faults, checks the parameters against the Bot API, applies flood limits
// and runs its method.
func (s *Server) handle(ctx context.Context, path string, p params, files map[string]upload, perr error) (any, Call, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, e, err := s.route(path)
	call := s.record(name, p)
	if err == nil {
		err = perr
	}
	if err == nil {
		err = s.takeFault(name)
	}
	if err == nil {
		err = e.spec.check(p, files)
	}
	if err == nil {
		err = s.admit(call)
	}
	var result any
	if err == nil {
		result, err = e.handle(s, &request{ctx: ctx, p: p, files: files})
	}
	s.finish(call, err)
	done := s.calls[call]
	done.Params = maps.Clone(done.Params)
	return result, done, err
}

// route splits /bot<token>/<method> and finds the method, case-insensitively.
// A name the Bot API does not have gets Telegram's 404; a real method the
// fake lacks gets a 501 that names it.
func (s *Server) route(path string) (string, endpoint, error) {
	rest, ok := strings.CutPrefix(path, "/bot")
	token, name, found := strings.Cut(rest, "/")
	if !ok || !found {
		return path, endpoint{}, notFound()
	}
	if token != s.opts.Token {
		return name, endpoint{}, unauthorized()
	}
	key := strings.ToLower(name)
	if e, ok := s.methods[key]; ok {
		return e.name, e, nil
	}
	if m := s.api[key]; m != nil {
		return m.name, endpoint{}, notImplemented(m.name)
	}
	return name, endpoint{}, notFound()
}

// tokenID is the numeric bot id at the start of a token ("123:abc" → 123).
func tokenID(token string) int64 {
	head, _, _ := strings.Cut(token, ":")
	id, err := strconv.ParseInt(head, 10, 64)
	if err != nil || id <= 0 {
		return 1
	}
	return id
}
