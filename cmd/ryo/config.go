package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/bot"
	"github.com/ryo-bot/ryo/bot/intake"
	"github.com/ryo-bot/ryo/stt"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tracing"
)

// Config is every setting, read once at start from the environment and an
// optional .env file. Each has a default except the token and the database.
type Config struct {
	Token          ryo.Secret
	TelegramAPIURL string
	DatabaseURL    ryo.Secret     // may hold a password
	OllamaHosts    []OllamaServer // one or more; see ollamaHosts
	OpenAIURL      *url.URL       // an OpenAI-compatible server that answers instead of Ollama; nil: Ollama answers
	OpenAIServers  []OllamaServer // every server of RYO_OPENAI_URL, OpenAIURL first; several share the turns
	OpenAIAPIKey   ryo.Secret     // that server's key; "" for none
	Model          string
	AdminIDs       []int64
	HTTPAddr       string // "" when switched off
	LogLevel       slog.Level
	LogFormat      string
	Timezone       *time.Location

	Workers           int
	HistoryMessages   int
	MaxRounds         int
	TurnTimeout       time.Duration
	MaxAttempts       int
	PollTimeout       time.Duration
	TelegramTimeout   time.Duration
	ShutdownGrace     time.Duration
	KeepAlive         time.Duration
	NumCtx            int
	NumPredict        int // the most tokens one model call may write
	ConnectTimeout    time.Duration
	FirstTokenTimeout time.Duration
	ModelTimeout      time.Duration
	NotifyAfter       time.Duration
	Drafts            bool
	ConfirmChanges    bool          // every tool that changes something waits for the yes, not only destructive ones
	ConfirmTTL        time.Duration // how long an action waits for its yes
	AdminsDecide      bool          // admins may confirm or cancel anyone's actions
	Access            string        // open, or allowlist: only admins and the people they let in
	EmbedModel        string        // for recall of memories and the knowledge base by meaning; "" for words alone
	VisionModel       string        // reads the photos people send; "" for the chat model when it reads pictures
	KnowledgeBytes    int64         // the largest document /knowledge add takes
	KnowledgeChunks   int           // the most passages of one document
	DocumentBytes     int64         // the largest file a person sends the bot to read
	DocumentBudget    int           // the most characters of a sent file's text shown to the model
	ImageURL          *url.URL      // an OpenAI-compatible image generator's API; nil: no generate_image
	ImageModel        string        // the generator's model; "" for its default
	ImageAPIKey       ryo.Secret    // the generator's key; "" for none
	ImageTimeout      time.Duration // one picture
	STTURL            *url.URL      // an OpenAI-compatible transcription server's API; nil: voice messages are not transcribed
	STTModel          string        // the transcription model
	STTAPIKey         ryo.Secret    // the transcription server's key; "" for none
	STTTimeout        time.Duration // one recording
	STTMaxDuration    time.Duration // the longest recording transcribed
	SearxNGURL        *url.URL      // a SearxNG instance for web_search; nil: not this provider
	BraveAPIKey       ryo.Secret    // a Brave Search key for web_search; "": not this provider
	SearchResults     int           // results web_search shows when the model does not say
	SearchCache       time.Duration // how long a search's answer is kept; 0 keeps none
	SearchTimeout     time.Duration // one search
	FetchPrivate      bool          // web_fetch may read this machine's and its networks' addresses, on any port
	PersonRate        int           // turns and commands one person may start a minute, once their burst is spent
	PersonBurst       int           // turns and commands one person may start at once
	Tiers             string        // which tools each tier unlocks: "name=tool,category,…;…"
	DefaultTier       string        // the tier of people not given another
	Quota             string        // how much each tier may ask: "limit,…;tier=limit,…" (RYO_QUOTA)
	QuotaAdmins       bool          // admins are held to quotas too
	APIs              []APIConfig   // services whose OpenAPI documents become tools (RYO_APIS)
	APIsRefresh       time.Duration // how often documents at URLs are asked for again; 0 never

	// How long what is kept only for a while is kept; 0 keeps it forever.
	RetainUpdates time.Duration // inbox updates after they were done
	RetainViews   time.Duration // paged lists' views: their buttons work as long
	RetainActions time.Duration // actions and their audit log after they ended
	RetainContext time.Duration // group messages kept as context only
	RetainFiles   time.Duration // the text of files people sent the bot to read
	RetainUsage   time.Duration // what each answered turn cost (/stats, quotas)

	// WebhookURL, when set, is where Telegram posts updates instead of
	// ryo polling; its path is served on HTTPAddr.
	WebhookURL         *url.URL
	WebhookSecret      ryo.Secret // generated at start when unset
	WebhookConnections int        // Telegram's max_connections

	// TelegramPacing is false when Telegram's flood limits are lifted, for
	// a Bot API server that has none (a test's).
	TelegramPacing bool
	// Pprof serves Go's runtime profiles at /debug/pprof/ on HTTPAddr.
	Pprof bool

	Tracing tracing.Config // where traces of turns go; off by default (tracing.go)
}

// Settings names every variable ryo reads, in the order .env.example lists
// them.
var settingNames = []string{
	"TELEGRAM_BOT_TOKEN", "TELEGRAM_API_URL", "DATABASE_URL", "OLLAMA_HOST", "RYO_OLLAMA_PARALLEL", "RYO_OPENAI_URL", "RYO_OPENAI_API_KEY", "RYO_MODEL", "RYO_ADMIN_IDS",
	"RYO_HTTP_ADDR", "RYO_LOG_LEVEL", "RYO_LOG_FORMAT", "RYO_TIMEZONE", "RYO_WORKERS", "RYO_HISTORY_MESSAGES",
	"RYO_MAX_ATTEMPTS", "RYO_POLL_TIMEOUT", "RYO_TELEGRAM_TIMEOUT", "RYO_SHUTDOWN_GRACE", "RYO_MODEL_KEEP_ALIVE",
	"RYO_MODEL_NUM_CTX", "RYO_MODEL_NUM_PREDICT", "RYO_MODEL_CONNECT_TIMEOUT", "RYO_MODEL_FIRST_TOKEN_TIMEOUT", "RYO_MODEL_TIMEOUT",
	"RYO_MAX_ROUNDS", "RYO_TURN_TIMEOUT", "RYO_NOTIFY_AFTER", "RYO_DRAFTS",
	"RYO_CONFIRM", "RYO_CONFIRM_TTL", "RYO_ADMINS_DECIDE", "RYO_ACCESS", "RYO_EMBED_MODEL", "RYO_VISION_MODEL",
	"RYO_KNOWLEDGE_MAX_BYTES", "RYO_KNOWLEDGE_MAX_CHUNKS", "RYO_DOCUMENT_MAX_BYTES", "RYO_DOCUMENT_BUDGET",
	"RYO_IMAGE_URL", "RYO_IMAGE_MODEL", "RYO_IMAGE_API_KEY", "RYO_IMAGE_TIMEOUT",
	"RYO_STT_URL", "RYO_STT_MODEL", "RYO_STT_API_KEY", "RYO_STT_TIMEOUT", "RYO_STT_MAX_DURATION",
	"RYO_SEARXNG_URL", "RYO_BRAVE_API_KEY", "RYO_SEARCH_RESULTS", "RYO_SEARCH_CACHE", "RYO_SEARCH_TIMEOUT", "RYO_FETCH_PRIVATE",
	"RYO_PERSON_RATE", "RYO_PERSON_BURST", "RYO_TIERS", "RYO_DEFAULT_TIER", "RYO_QUOTA", "RYO_QUOTA_ADMINS", "RYO_APIS", "RYO_APIS_REFRESH",
	"RYO_RETAIN_UPDATES", "RYO_RETAIN_VIEWS", "RYO_RETAIN_ACTIONS", "RYO_RETAIN_CONTEXT",
	"RYO_RETAIN_FILES", "RYO_RETAIN_USAGE",
	"RYO_WEBHOOK_URL", "RYO_WEBHOOK_SECRET", "RYO_WEBHOOK_CONNECTIONS",
	"RYO_TELEGRAM_PACING", "RYO_PPROF",
	// The standard OpenTelemetry variables (tracing.go).
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_SERVICE_NAME", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG", "OTEL_SDK_DISABLED",
}

// ConfigError is a missing or malformed setting. Its text is one line that
// names the setting and never quotes a secret.
type ConfigError struct {
	Name, Problem string
}

func (e *ConfigError) Error() string { return e.Name + ": " + e.Problem }

var tokenShape = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,}$`)

// LoadConfig reads the settings through lookup. needToken is false for
// subcommands that do not talk to Telegram.
func LoadConfig(lookup func(string) (string, bool), needToken bool) (Config, error) {
	r := &reader{lookup: lookup}
	parallel := r.between("RYO_OLLAMA_PARALLEL", 1, 1, maxParallel)
	c := Config{
		Token:          ryo.Secret(r.token("TELEGRAM_BOT_TOKEN", needToken)),
		TelegramAPIURL: r.httpURL("TELEGRAM_API_URL", "https://api.telegram.org").String(),
		DatabaseURL:    ryo.Secret(r.database("DATABASE_URL")),
		OllamaHosts:    r.ollamaHosts("OLLAMA_HOST", "http://127.0.0.1:11434", parallel),
		OpenAIServers:  r.openAIServers("RYO_OPENAI_URL", parallel),
		OpenAIAPIKey:   ryo.Secret(r.key("RYO_OPENAI_API_KEY")),
		Model:          r.str("RYO_MODEL", "qwen2.5:3b"),
		AdminIDs:       r.ids("RYO_ADMIN_IDS"),
		HTTPAddr:       r.addr("RYO_HTTP_ADDR", ":8080"),
		LogLevel:       r.level("RYO_LOG_LEVEL", slog.LevelInfo),
		LogFormat:      r.oneOf("RYO_LOG_FORMAT", "text", "text", "json"),
		Timezone:       r.location("RYO_TIMEZONE", "UTC"),

		Workers:           r.integer("RYO_WORKERS", 8, 1),
		HistoryMessages:   r.integer("RYO_HISTORY_MESSAGES", 30, 1),
		MaxRounds:         r.integer("RYO_MAX_ROUNDS", 4, 1),
		TurnTimeout:       r.duration("RYO_TURN_TIMEOUT", 10*time.Minute, time.Second),
		MaxAttempts:       r.integer("RYO_MAX_ATTEMPTS", 5, 1),
		PollTimeout:       r.duration("RYO_POLL_TIMEOUT", 50*time.Second, 2*time.Second),
		TelegramTimeout:   r.duration("RYO_TELEGRAM_TIMEOUT", 15*time.Second, time.Second),
		ShutdownGrace:     r.duration("RYO_SHUTDOWN_GRACE", 20*time.Second, 0),
		KeepAlive:         r.duration("RYO_MODEL_KEEP_ALIVE", 30*time.Minute, 0),
		NumCtx:            r.integer("RYO_MODEL_NUM_CTX", 0, 0),
		NumPredict:        r.integer("RYO_MODEL_NUM_PREDICT", 4096, 1),
		ConnectTimeout:    r.duration("RYO_MODEL_CONNECT_TIMEOUT", 5*time.Second, 100*time.Millisecond),
		FirstTokenTimeout: r.duration("RYO_MODEL_FIRST_TOKEN_TIMEOUT", 2*time.Minute, time.Second),
		ModelTimeout:      r.duration("RYO_MODEL_TIMEOUT", 5*time.Minute, time.Second),
		NotifyAfter:       r.duration("RYO_NOTIFY_AFTER", 8*time.Second, time.Millisecond),
		Drafts:            r.oneOf("RYO_DRAFTS", "on", "on", "off") == "on",
		ConfirmChanges:    r.oneOf("RYO_CONFIRM", "destructive", "destructive", "changes") == "changes",
		ConfirmTTL:        r.duration("RYO_CONFIRM_TTL", 15*time.Minute, time.Second),
		AdminsDecide:      r.oneOf("RYO_ADMINS_DECIDE", "off", "on", "off") == "on",
		Access:            r.oneOf("RYO_ACCESS", "open", "open", "allowlist"),
		EmbedModel:        r.str("RYO_EMBED_MODEL", ""),
		VisionModel:       r.str("RYO_VISION_MODEL", ""),
		KnowledgeBytes:    int64(r.integer("RYO_KNOWLEDGE_MAX_BYTES", bot.DefaultKnowledgeBytes, 1024)),
		KnowledgeChunks:   r.integer("RYO_KNOWLEDGE_MAX_CHUNKS", bot.DefaultKnowledgeChunks, 1),
		DocumentBytes:     int64(r.between("RYO_DOCUMENT_MAX_BYTES", bot.DefaultDocumentBytes, 1024, 20<<20)),
		DocumentBudget:    r.integer("RYO_DOCUMENT_BUDGET", bot.DefaultDocumentBudget, 500),
		ImageURL:          r.optionalURL("RYO_IMAGE_URL", "http://127.0.0.1:7860/v1"),
		ImageModel:        r.str("RYO_IMAGE_MODEL", ""),
		ImageAPIKey:       ryo.Secret(r.str("RYO_IMAGE_API_KEY", "")),
		ImageTimeout:      r.duration("RYO_IMAGE_TIMEOUT", 2*time.Minute, time.Second),
		STTURL:            r.optionalURL("RYO_STT_URL", "http://whisper:8080/v1"),
		STTModel:          r.str("RYO_STT_MODEL", stt.DefaultModel),
		STTAPIKey:         ryo.Secret(r.key("RYO_STT_API_KEY")),
		STTTimeout:        r.duration("RYO_STT_TIMEOUT", stt.DefaultTimeout, time.Second),
		STTMaxDuration:    r.duration("RYO_STT_MAX_DURATION", stt.DefaultMaxDuration, time.Second),
		SearxNGURL:        r.optionalURL("RYO_SEARXNG_URL", "http://searxng:8080"),
		BraveAPIKey:       ryo.Secret(r.key("RYO_BRAVE_API_KEY")),
		SearchResults:     r.between("RYO_SEARCH_RESULTS", 5, 1, 10),
		SearchCache:       r.every("RYO_SEARCH_CACHE", 5*time.Minute, time.Second),
		SearchTimeout:     r.duration("RYO_SEARCH_TIMEOUT", 10*time.Second, time.Second),
		FetchPrivate:      r.oneOf("RYO_FETCH_PRIVATE", "off", "on", "off") == "on",
		PersonRate:        r.integer("RYO_PERSON_RATE", 12, 1),
		PersonBurst:       r.integer("RYO_PERSON_BURST", 6, 1),
		Tiers:             r.str("RYO_TIERS", ""),
		DefaultTier:       r.str("RYO_DEFAULT_TIER", toolbus.DefaultTier),
		Quota:             r.str("RYO_QUOTA", ""),
		QuotaAdmins:       r.oneOf("RYO_QUOTA_ADMINS", "exempt", "exempt", "counted") == "counted",
		APIs:              r.apis("RYO_APIS"),
		APIsRefresh:       r.every("RYO_APIS_REFRESH", time.Hour, time.Minute),

		RetainUpdates: r.retention("RYO_RETAIN_UPDATES", 7*day, day), // Telegram may send an update again within a day
		RetainViews:   r.retention("RYO_RETAIN_VIEWS", day, time.Minute),
		RetainActions: r.retention("RYO_RETAIN_ACTIONS", 90*day, time.Minute),
		RetainContext: r.retention("RYO_RETAIN_CONTEXT", 30*day, time.Minute),
		RetainFiles:   r.retention("RYO_RETAIN_FILES", 30*day, time.Minute),
		RetainUsage:   r.retention("RYO_RETAIN_USAGE", 90*day, day), // /stats looks 30 days back

		WebhookURL:         r.webhookURL("RYO_WEBHOOK_URL"),
		WebhookSecret:      ryo.Secret(r.webhookSecret("RYO_WEBHOOK_SECRET")),
		WebhookConnections: r.between("RYO_WEBHOOK_CONNECTIONS", bot.DefaultWebhookConnections, 1, 100),

		TelegramPacing: r.oneOf("RYO_TELEGRAM_PACING", "telegram", "telegram", "off") == "telegram",
		Pprof:          r.oneOf("RYO_PPROF", "off", "on", "off") == "on",

		Tracing: r.tracing(),
	}
	if len(c.OpenAIServers) > 0 {
		c.OpenAIURL = c.OpenAIServers[0].URL
	}
	if c.Pprof && c.HTTPAddr == "" {
		r.fail("RYO_PPROF", "needs RYO_HTTP_ADDR, where the profiles are served; it is off")
	}
	if c.WebhookURL != nil && c.HTTPAddr == "" {
		r.fail("RYO_WEBHOOK_URL", "needs RYO_HTTP_ADDR, where the webhook is served; it is off")
	}
	if c.OpenAIAPIKey != "" && c.OpenAIURL == nil {
		r.fail("RYO_OPENAI_API_KEY", "is set but RYO_OPENAI_URL is not: name the server the key is for")
	}
	if c.SearxNGURL != nil && c.BraveAPIKey != "" {
		r.fail("RYO_BRAVE_API_KEY", "set one web search provider: RYO_SEARXNG_URL or RYO_BRAVE_API_KEY, not both")
	}
	return c, r.err
}

// reader reads settings, keeping the first problem.
type reader struct {
	lookup func(string) (string, bool)
	err    error
}

func (r *reader) get(name string) (string, bool) {
	v, ok := r.lookup(name)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

func (r *reader) fail(name, format string, args ...any) {
	if r.err == nil {
		r.err = &ConfigError{Name: name, Problem: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) str(name, def string) string {
	if v, ok := r.get(name); ok {
		return v
	}
	return def
}

// key reads an API key, which a header carries: one word, no spaces or
// control bytes inside. The value is not quoted back.
func (r *reader) key(name string) string {
	v := r.str(name, "")
	if strings.ContainsFunc(v, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) {
		r.fail(name, "has a space or a control character inside it: paste the key alone")
	}
	return v
}

func (r *reader) token(name string, required bool) string {
	v, ok := r.get(name)
	switch {
	case !ok && required:
		r.fail(name, "missing: set it to the token @BotFather gave you (123456789:AA...)")
	case ok && !tokenShape.MatchString(v):
		r.fail(name, "does not look like a bot token (digits, a colon, then 20+ letters, digits, _ or -)")
	}
	return v
}

func (r *reader) database(name string) string {
	v, ok := r.get(name)
	if !ok {
		r.fail(name, "missing: set it to a PostgreSQL URL such as postgres://ryo:PASSWORD@127.0.0.1:5432/ryo")
		return ""
	}
	if _, err := pgxpool.ParseConfig(v); err != nil {
		r.fail(name, "not a valid PostgreSQL URL (postgres://user:password@host:5432/dbname)")
	}
	return v
}

func (r *reader) httpURL(name, def string) *url.URL {
	v := r.str(name, def)
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, "want an http(s) URL such as %s, got %q", def, v)
		return &url.URL{}
	}
	return u
}

// optionalURL reads an http(s) URL that may be left out (nil then). The
// value is not quoted back: an address may carry a password.
func (r *reader) optionalURL(name, example string) *url.URL {
	v := r.str(name, "")
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, "want an http(s) URL such as %s", example)
		return nil
	}
	return u
}

// apis reads the file that lists the OpenAPI services, if one is named.
func (r *reader) apis(name string) []APIConfig {
	path, ok := r.get(name)
	if !ok {
		return nil
	}
	apis, err := readAPIs(path, r.lookup)
	if err != nil {
		r.fail(name, "%v", err)
	}
	return apis
}

func (r *reader) ids(name string) []int64 {
	v, ok := r.get(name)
	if !ok {
		return nil
	}
	var ids []int64
	for _, f := range strings.Split(v, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || id <= 0 {
			r.fail(name, "want comma-separated numeric Telegram user ids, got %q", strings.TrimSpace(f))
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// webhookURL reads the https URL Telegram posts updates to; nil when
// unset, and ryo polls.
func (r *reader) webhookURL(name string) *url.URL {
	v, ok := r.get(name)
	if !ok {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		r.fail(name, "want an https URL without a query, such as https://bot.example.com/telegram/hook, got %q", v)
		return nil
	}
	if u.Path == "" {
		u.Path = "/"
	}
	if strings.ContainsAny(u.Path, "{}") {
		r.fail(name, "its path may not hold { or }")
	}
	if u.Path == "/healthz" || u.Path == "/metrics" {
		r.fail(name, "its path %s is taken by ryo itself: choose another, such as /telegram/hook", u.Path)
	}
	return u
}

// webhookSecret reads the secret_token: Telegram takes 1–256 characters
// of A–Z, a–z, 0–9, _ and -. The value is not quoted back.
func (r *reader) webhookSecret(name string) string {
	v, ok := r.get(name)
	if ok && !intake.ValidWebhookSecret(v) {
		r.fail(name, "want 1–256 characters of A–Z, a–z, 0–9, _ and -, as Telegram takes; or leave it unset and one is made at each start")
	}
	return v
}

func (r *reader) addr(name, def string) string {
	v := r.str(name, def)
	if v == "off" {
		return ""
	}
	if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
		r.fail(name, "want host:port such as :8080 or 127.0.0.1:8080, or off, got %q", v)
	}
	return v
}

func (r *reader) level(name string, def slog.Level) slog.Level {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		r.fail(name, "want debug, info, warn or error, got %q", v)
	}
	return l
}

func (r *reader) oneOf(name, def string, allowed ...string) string {
	v := strings.ToLower(r.str(name, def))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.fail(name, "want one of %s, got %q", strings.Join(allowed, ", "), v)
	return def
}

func (r *reader) location(name, def string) *time.Location {
	v := r.str(name, def)
	loc, err := time.LoadLocation(v)
	if err != nil {
		r.fail(name, "want an IANA time zone such as Europe/Berlin or UTC, got %q", v)
		return time.UTC
	}
	return loc
}

func (r *reader) integer(name string, def, min int) int {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		r.fail(name, "want a whole number of at least %d, got %q", min, v)
		return def
	}
	return n
}

// between reads a whole number from lo to hi.
func (r *reader) between(name string, def, lo, hi int) int {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		r.fail(name, "want a whole number from %d to %d, got %q", lo, hi, v)
		return def
	}
	return n
}

func (r *reader) duration(name string, def, min time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < min {
		r.fail(name, "want a duration of at least %v such as 30s or 5m, got %q", min, v)
		return def
	}
	return d
}

const day = 24 * time.Hour

// every reads how often something is done: a duration of at least min, or
// 0 or off for never, which is returned as 0.
func (r *reader) every(name string, def, min time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	if v == "0" || strings.EqualFold(v, "off") {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < min {
		r.fail(name, "want a duration of at least %v such as 1h, or off, got %q", min, v)
		return def
	}
	return d
}

// retention reads how long something is kept: a number of days (7d), a
// duration (36h), or 0 or forever to keep it forever, which is returned
// as 0.
func (r *reader) retention(name string, def, min time.Duration) time.Duration {
	v, ok := r.get(name)
	if !ok {
		return def
	}
	if v == "0" || strings.EqualFold(v, "forever") {
		return 0
	}
	d, err := time.ParseDuration(v)
	if n, isDays := strings.CutSuffix(v, "d"); isDays {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(days) * day
		if days > 100*365 {
			err = errors.New("too long")
		}
	}
	if err != nil || d < min {
		least := strings.TrimSuffix(strings.TrimSuffix(min.String(), "0s"), "0m") // 24h, 1m
		r.fail(name, "want a number of days such as 7d, a duration of at least %s such as 36h, or forever, got %q", least, v)
		return def
	}
	return d
}

// Environ returns a lookup over the process environment with the .env file at
// path underneath it: a variable set in the environment wins. A missing file
// is no error.
func Environ(path string) (func(string) (string, bool), error) {
	file := map[string]string{}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	default:
		defer f.Close()
		if file, err = parseDotenv(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return func(name string) (string, bool) {
		if v, ok := os.LookupEnv(name); ok {
			return v, true
		}
		v, ok := file[name]
		return v, ok
	}, nil
}

// parseDotenv reads KEY=VALUE lines. Blank lines and # comments are skipped;
// "export " is allowed; values may be 'single' or "double" quoted (double
// quotes understand \n, \" and \\); an unquoted value ends at " #".
func parseDotenv(r io.Reader) (map[string]string, error) {
	vars := map[string]string{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		key = strings.TrimSpace(key)
		if !ok || !validKey(key) {
			return nil, fmt.Errorf("line %d: want KEY=VALUE", n)
		}
		v, err := dotenvValue(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", n, key, err)
		}
		vars[key] = v
	}
	return vars, sc.Err()
}

var keyShape = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func validKey(k string) bool { return keyShape.MatchString(k) }

func dotenvValue(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, `"`):
		end := strings.LastIndex(v, `"`)
		if end == 0 {
			return "", errors.New("unclosed double quote")
		}
		return strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`).Replace(v[1:end]), nil
	case strings.HasPrefix(v, "'"):
		end := strings.LastIndex(v, "'")
		if end == 0 {
			return "", errors.New("unclosed single quote")
		}
		return v[1:end], nil
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}
