package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // IANA zones for RYO_TIMEZONE in a static binary

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/bot/intake"
	"github.com/ryo-bot/ryo/fetch"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/prompts"
	"github.com/ryo-bot/ryo/stt"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
	"github.com/ryo-bot/ryo/tracing"
	"github.com/ryo-bot/ryo/websearch"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second signal stops the process at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK     = 0
	exitFailed = 1
	exitConfig = 2
)

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		cmd = args[0]
	}
	if cmd == fetchWorkerCommand { // before the settings: a worker reads no secrets
		return fetchWorker(os.Stdin, stdout, stderr)
	}
	lookup, err := Environ(".env")
	if err != nil {
		fmt.Fprintln(stderr, "ryo:", err)
		if cmd == "healthcheck" {
			return exitFailed // exit 2 is reserved in container health checks
		}
		return exitConfig
	}
	switch cmd {
	case "serve", "migrate", "doctor", "deadletter":
	case "healthcheck":
		return healthcheck(ctx, lookup, stderr)
	case "tools":
		return toolsCommand(ctx, lookup, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: ryo [serve|migrate|doctor|healthcheck|deadletter [retry <update id>|all]|tools [lint <document>]]  (settings: see .env.example)")
		return exitOK
	default:
		fmt.Fprintf(stderr, "ryo: unknown command %q (want serve, migrate, doctor, healthcheck, deadletter or tools)\n", cmd)
		return exitConfig
	}
	cfg, err := LoadConfig(lookup, cmd == "serve" || cmd == "doctor")
	if err != nil {
		fmt.Fprintln(stderr, "ryo: config:", err)
		return exitConfig
	}
	log := newLogger(cfg, stderr)
	switch cmd {
	case "migrate":
		err = migrate(ctx, cfg, log)
	case "doctor":
		return doctor(ctx, cfg, stdout)
	case "deadletter":
		return deadLetter(ctx, cfg, log, args[1:], stdout)
	default:
		err = NewMain(cfg, log).Run(ctx)
	}
	if err != nil {
		log.Error("ryo stopped", "err", err)
		return exitFailed
	}
	return exitOK
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// Main is the wired program; end-to-end tests run the same value.
type Main struct {
	Config Config
	Log    *slog.Logger

	// HTTPReadTimeout bounds how long one request to RYO_HTTP_ADDR may
	// take to arrive, its body included.
	HTTPReadTimeout time.Duration

	// Tools are tools beyond the built-in ones, registered at start.
	Tools []toolbus.Spec

	// FetchConfig, when set, adjusts the settings of the fetcher web_fetch
	// and /knowledge add <url> read pages with, before it is made:
	// end-to-end tests route public names to local servers with its
	// resolver and dial hooks.
	FetchConfig func(*fetch.Config)

	// Clock is the one clock every part reads the time from.
	Clock ryo.Clock

	// Set by Run while it runs.
	DB       *memory.DB
	HTTPAddr net.Addr // where /healthz and /metrics listen, nil when switched off
	APIs     *apiSync // keeps the APIs' tools in step with their documents
	ready    chan struct{}
}

// NewMain returns a program that has not started.
func NewMain(cfg Config, log *slog.Logger) *Main {
	log = slog.New(tracing.Handler(log.Handler())) // a turn's lines name it
	return &Main{Config: cfg, Log: log, HTTPReadTimeout: 30 * time.Second, Clock: ryo.SystemClock{}, ready: make(chan struct{})}
}

// Ready is closed once Run has opened the database and started its parts.
func (m *Main) Ready() <-chan struct{} { return m.ready }

// Run connects everything and runs the bot until ctx ends.
func (m *Main) Run(ctx context.Context) error {
	cfg, log := m.Config, m.Log
	if cfg.WebhookURL != nil && cfg.WebhookSecret == "" { // the same in every replica of the bot
		cfg.WebhookSecret = ryo.Secret(intake.DerivedWebhookSecret(cfg.Token.Reveal()))
	}
	db, err := openDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	db.Clock = m.Clock
	m.DB = db
	cfg.Tracing.Clock = m.Clock
	traces, err := startTracing(cfg, log) // tracing.go
	if err != nil {
		return err
	}
	defer stopTracing(ctx, traces, log)
	reg, stats := newMetrics(db, log)
	set, err := prompts.Load()
	if err != nil {
		return err
	}
	local, model, stopModels := startModels(ctx, cfg, m.Clock, reg, log)
	defer stopModels()
	checked := make(chan struct{})
	go func() { checkModel(ctx, model, log); close(checked) }()
	defer func() { <-checked }()
	recall := tools.Recaller{Store: db, Log: log} // without an embedding model: memories by their words alone
	if cfg.EmbedModel != "" {
		recall.Embedder = local // embeddings stay on Ollama, whichever server answers
	}
	m.APIs = newAPISync(cfg.APIs, db, m.Clock, cfg.APIsRefresh, log)
	apis := m.APIs.load(ctx)
	logAPIs(log, apis)
	fetcher := m.fetcher()
	registry, err := newRegistry(cfg, m.Clock, log, append(append(tools.Memory(recall, m.Clock), tools.HistorySearch(db),
		tools.KnowledgeSearch(db, recall.Vector), tools.WebFetch(fetcher)), m.Tools...), apis)
	if err != nil {
		return err
	}
	registry.SetObserver(stats)
	registry.SetTracer(traces.Tracer())
	var categories []toolbus.Category // each API's, though its document may not have loaded
	for _, a := range cfg.APIs {
		categories = append(categories, toolbus.Category(a.Name))
	}
	tiers, err := toolbus.ParseTiers(cfg.Tiers, cfg.DefaultTier, registry.Specs(), categories...)
	if err != nil {
		name := "RYO_TIERS"
		if strings.HasPrefix(err.Error(), "default tier") {
			name = "RYO_DEFAULT_TIER"
		}
		return &ConfigError{Name: name, Problem: err.Error()}
	}
	tiers = tiers.Follow(registry) // an API's category unlocks its tools as they are now
	quotas, err := bot.ParseQuotas(cfg.Quota, tiers.Names())
	if err != nil {
		return &ConfigError{Name: "RYO_QUOTA", Problem: err.Error()}
	}
	quotas.Admins = cfg.QuotaAdmins
	m.APIs.use(registry)
	answerer, err := agent.New(agent.Config{Model: stats.Model(model), Prompts: set, Tools: registry, Store: db,
		Location: cfg.Timezone, MaxRounds: cfg.MaxRounds, Clock: m.Clock, Tracer: traces.Tracer()})
	if err != nil {
		return err
	}
	b, err := bot.New(bot.Config{
		Token: cfg.Token, APIURL: cfg.TelegramAPIURL, AdminIDs: cfg.AdminIDs, Workers: cfg.Workers,
		PollTimeout: cfg.PollTimeout, CallTimeout: cfg.TelegramTimeout, HistoryLimit: cfg.HistoryMessages,
		MaxAttempts: cfg.MaxAttempts, ShutdownGrace: cfg.ShutdownGrace, TurnTimeout: cfg.TurnTimeout,
		NotifyAfter: cfg.NotifyAfter, Drafts: cfg.Drafts, Unpaced: !cfg.TelegramPacing,
		Tools: registry, Tiers: tiers, Quotas: quotas, ConfirmTTL: cfg.ConfirmTTL, AdminsDecide: cfg.AdminsDecide, Location: cfg.Timezone, Access: cfg.Access,
		PersonRate: cfg.PersonRate, PersonBurst: cfg.PersonBurst,
		Recall: recall, Clock: m.Clock, Metrics: stats, Tracer: traces.Tracer(), Vision: model, Models: model, Listen: listener(cfg, log),
		Knowledge: bot.KnowledgeConfig{MaxBytes: cfg.KnowledgeBytes, MaxChunks: cfg.KnowledgeChunks,
			Extract: documentReader{fetcher}.Extract, Pages: documentReader{fetcher}},
		Documents: bot.DocumentConfig{MaxBytes: cfg.DocumentBytes, Budget: cfg.DocumentBudget},
		Retention: memory.Retention{Updates: cfg.RetainUpdates, Views: cfg.RetainViews, Actions: cfg.RetainActions, Context: cfg.RetainContext,
			Files: cfg.RetainFiles, Usage: cfg.RetainUsage},
		WebhookURL: webhookURL(cfg), WebhookSecret: cfg.WebhookSecret, WebhookConnections: cfg.WebhookConnections, ReplicaID: cfg.ReplicaID,
	}, log, db, answerer, cfg.Model)
	if err != nil {
		return err
	}
	stopHTTP, err := m.serveHTTP(ctx, db, metricsHandler(reg, log), webhookRoute(cfg, b))
	if err != nil {
		return err
	}
	defer stopHTTP()
	synced := make(chan struct{})
	syncCtx, stopSync := context.WithCancel(ctx)
	go func() { m.APIs.run(syncCtx); close(synced) }()
	defer func() { stopSync(); <-synced }()
	close(m.ready)
	return b.Run(ctx)
}

// fetchWorkerCommand is the hidden subcommand a page's text is extracted
// in, out of the bot's process (see fetch.ServeWorker).
const fetchWorkerCommand = "internal-fetch-worker"

func fetchWorker(stdin io.Reader, stdout, stderr io.Writer) int {
	if err := fetch.ServeWorker(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "ryo: fetch worker:", err)
		return exitFailed
	}
	return exitOK
}

// fetcher is what web_fetch reads pages with. It extracts text in this
// program started again as a fetch worker, with an empty environment.
func (m *Main) fetcher() *fetch.Fetcher {
	fc := fetch.Config{AllowPrivate: m.Config.FetchPrivate, Log: m.Log}
	if exe, err := os.Executable(); err == nil {
		fc.Worker = func(ctx context.Context) *exec.Cmd {
			cmd := exec.CommandContext(ctx, exe, fetchWorkerCommand)
			cmd.Env = []string{}
			return cmd
		}
	} else {
		m.Log.Warn("web pages' text is extracted in the bot's own process", "err", err)
	}
	if m.FetchConfig != nil {
		m.FetchConfig(&fc)
	}
	return fetch.New(fc)
}

// newRegistry lists the tools the model may use: the built-in ones,
// extra, and those made from the APIs' documents, each API a category.
func newRegistry(cfg Config, clock ryo.Clock, log *slog.Logger, extra []toolbus.Spec, apis []loadedAPI) (*toolbus.Registry, error) {
	r := toolbus.NewRegistry()
	r.SetClock(clock)
	if cfg.ConfirmChanges {
		r.SetPolicy(toolbus.ConfirmChanges)
	}
	specs := tools.Builtin(cfg.Timezone, clock)
	if cfg.ImageURL != nil { // offered only with a generator to ask
		specs = append(specs, tools.GenerateImage(tools.ImageConfig{URL: cfg.ImageURL, Model: cfg.ImageModel,
			APIKey: cfg.ImageAPIKey, Timeout: cfg.ImageTimeout, Log: log}))
	}
	if s := webSearcher(cfg, clock); s != nil { // offered only with a provider to ask
		specs = append(specs, tools.WebSearch(tools.WebSearchConfig{Searcher: websearch.NewCached(s, cfg.SearchCache, 0, clock),
			Count: cfg.SearchResults, Timeout: cfg.SearchTimeout, Log: log}))
	}
	for _, spec := range append(specs, extra...) {
		if err := r.Register(spec); err != nil {
			return nil, err
		}
	}
	for _, api := range apis {
		for _, spec := range api.Catalog.Specs() {
			if err := r.Register(spec); err != nil { // a name another tool has: that tool keeps it
				log.Error("API tool left out", "api", api.Catalog.API, "tool", spec.Name, "err", err)
			}
		}
	}
	return r, nil
}

// webSearcher is the web search provider the settings name, or nil.
func webSearcher(cfg Config, clock ryo.Clock) websearch.Searcher {
	switch {
	case cfg.SearxNGURL != nil:
		return websearch.SearxNG{BaseURL: cfg.SearxNGURL, Timeout: cfg.SearchTimeout, Clock: clock}
	case cfg.BraveAPIKey != "":
		return websearch.Brave{APIKey: cfg.BraveAPIKey, Timeout: cfg.SearchTimeout, Clock: clock}
	}
	return nil
}

// openDB connects and brings the schema up to date.
func openDB(ctx context.Context, cfg Config, log *slog.Logger) (*memory.DB, error) {
	connectCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	db, err := memory.Open(connectCtx, cfg.DatabaseURL.Reveal())
	if err != nil {
		return nil, err
	}
	migrateCtx, cancelMigrate := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelMigrate()
	applied, err := db.Migrate(migrateCtx)
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, name := range applied {
		log.Info("applied migration", "name", name)
	}
	return db, nil
}

func migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, err := openDB(ctx, cfg, log)
	if err != nil {
		return err
	}
	db.Close()
	log.Info("database schema is up to date")
	return nil
}

// modelServer is the server that answers turns, reads photos and lists
// the models for /model: Ollama, or the OpenAI-compatible server
// RYO_OPENAI_URL names.
type modelServer interface {
	agent.Model
	bot.Vision
	bot.Models
	// Check says what the server is, or why it cannot answer.
	Check(ctx context.Context) (string, error)
	Model() string
}

// checkModel warns at start when the model server cannot be reached or
// lacks the model; the bot runs anyway and tells users the same when they
// ask.
func checkModel(ctx context.Context, model modelServer, log *slog.Logger) {
	version, err := model.Check(ctx)
	if err != nil {
		log.Warn("model server check failed; turns will fail until it is fixed", "err", err)
		return
	}
	log.Info("model server ready", "server", version, "model", model.Model())
	switch vision, err := model.VisionModel(ctx); {
	case err != nil:
		log.Warn("cannot tell whether the model reads pictures; it is asked again at the next photo", "err", err)
	case vision == "":
		log.Info("no model reads pictures: a photo gets one sentence naming RYO_VISION_MODEL")
	default:
		log.Info("photos are read", "vision_model", vision)
	}
}

// listener is the transcription server recordings are sent to, or nil
// when RYO_STT_URL names none: a recording then gets one sentence naming
// the setting.
func listener(cfg Config, log *slog.Logger) bot.Listener {
	if cfg.STTURL == nil {
		log.Info("no transcription server: a voice message gets one sentence naming RYO_STT_URL")
		return nil
	}
	log.Info("voice messages are transcribed", "stt_model", cfg.STTModel, "max_duration", cfg.STTMaxDuration.String())
	return stt.New(stt.Config{URL: cfg.STTURL, Model: cfg.STTModel, APIKey: cfg.STTAPIKey, Timeout: cfg.STTTimeout,
		Limits: stt.Limits{MaxDuration: cfg.STTMaxDuration}})
}

// route is a handler and the path it is served at.
type route struct {
	path    string
	handler http.Handler
}

// webhookURL is the webhook's URL as Telegram is given it; "" when ryo polls.
func webhookURL(cfg Config) string {
	if cfg.WebhookURL == nil {
		return ""
	}
	return cfg.WebhookURL.String()
}

// webhookRoute is where Telegram's posts are taken; none when ryo polls.
func webhookRoute(cfg Config, b *bot.Bot) []route {
	if cfg.WebhookURL == nil {
		return nil
	}
	return []route{{path: cfg.WebhookURL.Path, handler: b.Webhook()}}
}

// serveHTTP serves /healthz, /metrics and the webhook, if any, on the
// configured address until stop is called.
func (m *Main) serveHTTP(ctx context.Context, db *memory.DB, metrics http.Handler, routes []route) (stop func(), err error) {
	if m.Config.HTTPAddr == "" {
		return func() {}, nil
	}
	l, err := net.Listen("tcp", m.Config.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("RYO_HTTP_ADDR: %w", err)
	}
	m.HTTPAddr = l.Addr()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if err := db.Ping(r.Context()); err != nil {
			http.Error(w, "database unavailable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", metrics)
	if m.Config.Pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	for _, r := range routes {
		mux.Handle(r.path, r.handler)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: m.HTTPReadTimeout}
	go srv.Serve(l)
	return func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}, nil
}

// healthcheck asks the running bot's /healthz; it is the container's
// health check, so it needs no shell or curl.
func healthcheck(ctx context.Context, lookup func(string) (string, bool), stderr io.Writer) int {
	r := &reader{lookup: lookup}
	addr := r.addr("RYO_HTTP_ADDR", ":8080")
	if r.err != nil || addr == "" {
		fmt.Fprintln(stderr, "ryo healthcheck: RYO_HTTP_ADDR is off or invalid")
		return exitFailed
	}
	_, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+port+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "ryo healthcheck:", err)
		return exitFailed
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(stderr, "ryo healthcheck:", resp.Status)
		return exitFailed
	}
	return exitOK
}
