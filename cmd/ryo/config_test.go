package main

import (
	"bufio"
	"errors"
	"github.com/ryo-bot/ryo/bot"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// testToken starts with the bot's id, as a real token does; bots made
// today have ids beyond 32 bits.
const (
	testToken = "7234567890:AAHfakeTokenForTestsOnly_0123456789"
	testBotID = 7234567890
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func minimal() map[string]string {
	return map[string]string{"TELEGRAM_BOT_TOKEN": testToken, "DATABASE_URL": "postgres://ryo:pw@db:5432/ryo"}
}

func TestConfigDefaults(t *testing.T) {
	c, err := LoadConfig(env(minimal()), true)
	if err != nil {
		t.Fatal(err)
	}
	if c.Token.Reveal() != testToken || c.TelegramAPIURL != "https://api.telegram.org" || len(c.OllamaHosts) != 1 || c.OllamaHosts[0].URL.String() != "http://127.0.0.1:11434" || c.OllamaHosts[0].Parallel != 1 ||
		c.Model != "qwen2.5:3b" || c.HTTPAddr != ":8080" || c.Workers != 8 || c.Timezone.String() != "UTC" ||
		c.FirstTokenTimeout != 2*time.Minute || c.LogLevel != slog.LevelInfo || c.NotifyAfter != 8*time.Second || !c.Drafts ||
		c.ConfirmChanges || c.ConfirmTTL != 15*time.Minute || c.AdminsDecide || c.Access != "open" || c.NumPredict != 4096 ||
		c.RetainUpdates != 7*24*time.Hour || c.RetainViews != 24*time.Hour || c.RetainActions != 90*24*time.Hour || c.RetainContext != 30*24*time.Hour {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestConfigValues(t *testing.T) {
	vars := minimal()
	vars["OLLAMA_HOST"] = "gpu-box"
	vars["RYO_ADMIN_IDS"] = "123456789, 7123456789"
	vars["RYO_HTTP_ADDR"] = "off"
	vars["RYO_TIMEZONE"] = "Europe/Berlin"
	vars["RYO_MODEL_TIMEOUT"] = "90s"
	vars["RYO_LOG_LEVEL"] = "debug"
	vars["RYO_NOTIFY_AFTER"] = "20s"
	vars["RYO_DRAFTS"] = "off"
	vars["RYO_CONFIRM"] = "changes"
	vars["RYO_CONFIRM_TTL"] = "2m"
	vars["RYO_ADMINS_DECIDE"] = "on"
	vars["RYO_ACCESS"] = "allowlist"
	vars["RYO_MODEL_NUM_PREDICT"] = "512"
	vars["RYO_RETAIN_UPDATES"] = "36h"
	vars["RYO_RETAIN_VIEWS"] = "forever"
	vars["RYO_RETAIN_ACTIONS"] = "365d"
	vars["RYO_RETAIN_CONTEXT"] = "0"
	c, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OllamaHosts) != 1 || c.OllamaHosts[0].URL.String() != "http://gpu-box:11434" || len(c.AdminIDs) != 2 || c.AdminIDs[1] != 7123456789 || c.HTTPAddr != "" ||
		c.Timezone.String() != "Europe/Berlin" || c.ModelTimeout != 90*time.Second || c.LogLevel != slog.LevelDebug ||
		c.NotifyAfter != 20*time.Second || c.Drafts || !c.ConfirmChanges || c.ConfirmTTL != 2*time.Minute || !c.AdminsDecide ||
		c.Access != "allowlist" || c.NumPredict != 512 ||
		c.RetainUpdates != 36*time.Hour || c.RetainViews != 0 || c.RetainActions != 365*24*time.Hour || c.RetainContext != 0 {
		t.Fatalf("config = %+v", c)
	}
}

func TestConfigErrorsNameTheSettingAndHideSecrets(t *testing.T) {
	tests := []struct {
		name, key, value, want string
	}{
		{"missing token", "TELEGRAM_BOT_TOKEN", "", "TELEGRAM_BOT_TOKEN: missing"},
		{"bad token", "TELEGRAM_BOT_TOKEN", "12:short-secret-value", "TELEGRAM_BOT_TOKEN: does not look like a bot token"},
		{"missing database", "DATABASE_URL", "", "DATABASE_URL: missing"},
		{"bad database", "DATABASE_URL", "postgres://u:topsecret@h:port/db", "DATABASE_URL: not a valid PostgreSQL URL"},
		{"bad admin ids", "RYO_ADMIN_IDS", "12,abc", `RYO_ADMIN_IDS: want comma-separated numeric Telegram user ids, got "abc"`},
		{"bad workers", "RYO_WORKERS", "0", `RYO_WORKERS: want a whole number of at least 1, got "0"`},
		{"bad duration", "RYO_MODEL_TIMEOUT", "soon", `RYO_MODEL_TIMEOUT: want a duration`},
		{"bad zone", "RYO_TIMEZONE", "Mars/Olympus", `RYO_TIMEZONE: want an IANA time zone`},
		{"bad address", "RYO_HTTP_ADDR", "8080", `RYO_HTTP_ADDR: want host:port`},
		{"bad url", "TELEGRAM_API_URL", "ftp://x", `TELEGRAM_API_URL: want an http(s) URL`},
		{"bad level", "RYO_LOG_LEVEL", "loud", `RYO_LOG_LEVEL: want debug, info, warn or error`},
		{"zero notify", "RYO_NOTIFY_AFTER", "0s", `RYO_NOTIFY_AFTER: want a duration of at least 1ms`},
		{"bad drafts", "RYO_DRAFTS", "maybe", `RYO_DRAFTS: want one of on, off, got "maybe"`},
		{"bad access", "RYO_ACCESS", "closed", `RYO_ACCESS: want one of open, allowlist, got "closed"`},
		{"bad confirm", "RYO_CONFIRM", "all", `RYO_CONFIRM: want one of destructive, changes, got "all"`},
		{"short confirm ttl", "RYO_CONFIRM_TTL", "0s", `RYO_CONFIRM_TTL: want a duration of at least 1s`},
		{"updates kept less than a day", "RYO_RETAIN_UPDATES", "12h", `RYO_RETAIN_UPDATES: want a number of days such as 7d, a duration of at least 24h such`},
		{"bad days", "RYO_RETAIN_CONTEXT", "-3d", `RYO_RETAIN_CONTEXT: want a number of days`},
		{"days beyond a century", "RYO_RETAIN_ACTIONS", "99999999d", `RYO_RETAIN_ACTIONS: want a number of days`},
		{"bad retention", "RYO_RETAIN_VIEWS", "never", `RYO_RETAIN_VIEWS: want a number of days`},
		{"webhook over http", "RYO_WEBHOOK_URL", "http://bot.example.com/hook", `RYO_WEBHOOK_URL: want an https URL`},
		{"webhook on healthz", "RYO_WEBHOOK_URL", "https://bot.example.com/healthz", `RYO_WEBHOOK_URL: its path /healthz is taken`},
		{"webhook secret with a space", "RYO_WEBHOOK_SECRET", "my secret", `RYO_WEBHOOK_SECRET: want 1–256 characters`},
		{"webhook secret too long", "RYO_WEBHOOK_SECRET", strings.Repeat("s", 257), `RYO_WEBHOOK_SECRET: want 1–256 characters`},
		{"webhook connections", "RYO_WEBHOOK_CONNECTIONS", "101", `RYO_WEBHOOK_CONNECTIONS: want`},
		{"bad ollama host", "OLLAMA_HOST", "ftp://gpu", `OLLAMA_HOST: want a host or URL such as http://127.0.0.1:11434`},
		{"empty server in the list", "OLLAMA_HOST", "gpu1,,gpu2", `OLLAMA_HOST: want a host or URL`},
		{"trailing comma", "OLLAMA_HOST", "gpu1,", `OLLAMA_HOST: want a host or URL`},
		{"zero at once", "OLLAMA_HOST", "gpu1=0,gpu2", `OLLAMA_HOST: want a host or URL`},
		{"words at once", "OLLAMA_HOST", "gpu1=four", `OLLAMA_HOST: want a host or URL`},
		{"a server twice", "OLLAMA_HOST", "gpu1,http://gpu1:11434=2", `OLLAMA_HOST: the server http://gpu1:11434 is listed twice`},
		{"password hidden", "OLLAMA_HOST", "http://u:secret@gpu1,http://u:secret@gpu1", `OLLAMA_HOST: the server http://u:xxxxx@gpu1 is listed twice`},
		{"bad parallel", "RYO_OLLAMA_PARALLEL", "0", `RYO_OLLAMA_PARALLEL: want a whole number from 1 to 256`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := minimal()
			vars[tt.key] = tt.value
			_, err := LoadConfig(env(vars), true)
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("LoadConfig = %v; want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q must be one line without the secret", err)
			}
		})
	}
}

// OLLAMA_HOST names several servers, each with the requests it answers
// at once, else RYO_OLLAMA_PARALLEL's.
func TestConfigSeveralOllamaServers(t *testing.T) {
	vars := minimal()
	vars["OLLAMA_HOST"] = "http://gpu1:11434=4, gpu2 ,https://u:pw@big.example:443/ollama=2"
	vars["RYO_OLLAMA_PARALLEL"] = "3"
	c, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		url      string
		parallel int
	}{{"http://gpu1:11434", 4}, {"http://gpu2:11434", 3}, {"https://u:pw@big.example:443/ollama", 2}}
	if len(c.OllamaHosts) != len(want) {
		t.Fatalf("hosts = %+v", c.OllamaHosts)
	}
	for i, w := range want {
		if h := c.OllamaHosts[i]; h.URL.String() != w.url || h.Parallel != w.parallel {
			t.Errorf("host %d = %s (%d at once); want %s (%d)", i, h.URL, h.Parallel, w.url, w.parallel)
		}
	}
}

func TestMigrateNeedsNoToken(t *testing.T) {
	vars := minimal()
	delete(vars, "TELEGRAM_BOT_TOKEN")
	if _, err := LoadConfig(env(vars), false); err != nil {
		t.Fatal(err)
	}
}

func TestTokenNeverPrints(t *testing.T) {
	c, _ := LoadConfig(env(minimal()), true)
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("config", "config", c, "token", c.Token)
	for _, s := range []string{b.String(), c.Token.String()} {
		if strings.Contains(s, "AAHfake") {
			t.Fatalf("the token leaked: %s", s)
		}
	}
}

func TestDotenv(t *testing.T) {
	got, err := parseDotenv(strings.NewReader(`
# comment
export A=1
B = two words # trailing comment
C="quoted # not a comment\nline"
D='single $x'
E=
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "1", "B": "two words", "C": "quoted # not a comment\nline", "D": "single $x", "E": ""}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q; want %q", k, got[k], v)
		}
	}
	if _, err := parseDotenv(strings.NewReader("just words\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("bad line error = %v; want it to name line 1", err)
	}
}

func TestEnvironmentWinsOverDotenv(t *testing.T) {
	path := t.TempDir() + "/.env"
	os.WriteFile(path, []byte("RYO_TEST_ONLY_A=file\nRYO_TEST_ONLY_B=file\n"), 0o600)
	t.Setenv("RYO_TEST_ONLY_A", "env")
	lookup, err := Environ(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := lookup("RYO_TEST_ONLY_A")
	b, _ := lookup("RYO_TEST_ONLY_B")
	if a != "env" || b != "file" {
		t.Fatalf("A=%q B=%q; want env, file", a, b)
	}
}

// .env.example documents exactly the settings ryo reads.
func TestEnvExampleListsEverySetting(t *testing.T) {
	f, err := os.Open("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimPrefix(strings.TrimSpace(sc.Text()), "# ")
		if k, _, ok := strings.Cut(line, "="); ok && keyShape.MatchString(k) {
			listed[k] = true
		}
	}
	for _, name := range settingNames {
		if !listed[name] {
			t.Errorf(".env.example does not list %s", name)
		}
	}
	for name := range listed {
		compose := strings.HasPrefix(name, "POSTGRES_") || strings.HasPrefix(name, "SEARXNG_") // docker compose's own
		if !compose && !slices.Contains(settingNames, name) {
			t.Errorf(".env.example lists %s, which ryo does not read", name)
		}
	}
}

// settingNames names every variable LoadConfig reads, so the check above
// covers them all.
func TestSettingNamesAreComplete(t *testing.T) {
	var read []string
	LoadConfig(func(k string) (string, bool) { read = append(read, k); return minimal()[k], true }, true)
	slices.Sort(read)
	names := slices.Sorted(slices.Values(settingNames))
	if !slices.Equal(slices.Compact(read), names) {
		t.Fatalf("LoadConfig reads %v;\nsettingNames has %v", read, names)
	}
}

func FuzzDotenv(f *testing.F) {
	f.Add("A=1\nexport B='x'\nC=\"a\\nb\" # c\n")
	f.Fuzz(func(t *testing.T, text string) {
		vars, err := parseDotenv(strings.NewReader(text))
		if err == nil {
			for k := range vars {
				if !keyShape.MatchString(k) {
					t.Fatalf("accepted the key %q", k)
				}
			}
		}
	})
}

// Web search is off until a provider is named; each provider's settings
// are read, and a bad one stops start-up naming it.
func TestConfigWebSearch(t *testing.T) {
	c, err := LoadConfig(env(minimal()), true)
	if err != nil || c.SearxNGURL != nil || c.BraveAPIKey != "" || c.SearchResults != 5 || c.SearchCache != 5*time.Minute || c.SearchTimeout != 10*time.Second {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	vars := minimal()
	vars["RYO_SEARXNG_URL"] = "http://searxng:8080"
	vars["RYO_SEARCH_RESULTS"] = "8"
	vars["RYO_SEARCH_CACHE"] = "off"
	vars["RYO_SEARCH_TIMEOUT"] = "4s"
	c, err = LoadConfig(env(vars), true)
	if err != nil || c.SearxNGURL.String() != "http://searxng:8080" || c.SearchResults != 8 || c.SearchCache != 0 || c.SearchTimeout != 4*time.Second {
		t.Fatalf("searxng: %+v, %v", c, err)
	}
	vars = minimal()
	vars["RYO_BRAVE_API_KEY"] = "BSAsecretkey123"
	if c, err = LoadConfig(env(vars), true); err != nil || c.BraveAPIKey.Reveal() != "BSAsecretkey123" {
		t.Fatalf("brave: %v", err)
	}
	for _, tt := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"RYO_SEARXNG_URL": "searxng:8080"}, "RYO_SEARXNG_URL: want an http(s) URL such as http://searxng:8080"},
		{map[string]string{"RYO_SEARXNG_URL": "http://searxng:8080", "RYO_BRAVE_API_KEY": "BSAsecretkey123"}, "RYO_BRAVE_API_KEY: set one web search provider"},
		{map[string]string{"RYO_SEARCH_RESULTS": "11"}, "RYO_SEARCH_RESULTS: want a whole number from 1 to 10"},
		{map[string]string{"RYO_SEARCH_CACHE": "soon"}, "RYO_SEARCH_CACHE: want a duration"},
		{map[string]string{"RYO_SEARCH_TIMEOUT": "10ms"}, "RYO_SEARCH_TIMEOUT: want a duration of at least 1s"},
	} {
		vars := minimal()
		for k, v := range tt.vars {
			vars[k] = v
		}
		_, err := LoadConfig(env(vars), true)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "BSAsecretkey123") {
			t.Errorf("%v: %v; want %q", tt.vars, err, tt.want)
		}
	}
}

// Odd values of the web search settings: a SearxNG address with a path,
// a trailing slash, a query string, https or credentials is taken (the
// query string is not sent: ryo writes its own), and a bad one is refused
// without its password in the message; results, cache and timeout refuse
// what they cannot mean.
func TestConfigWebSearchOddValues(t *testing.T) {
	for _, v := range []string{"http://searx.example/searx/", "https://searx.example", "http://searx.example/?safesearch=1", "http://ryo:s3cret@searxng:8080"} {
		vars := minimal()
		vars["RYO_SEARXNG_URL"] = v
		if c, err := LoadConfig(env(vars), true); err != nil || c.SearxNGURL == nil || c.SearxNGURL.String() != v {
			t.Errorf("%s: %v, %v", v, c.SearxNGURL, err)
		}
	}
	for _, v := range []string{"ftp://ryo:s3cret@searxng", "http://ryo:s3cret@", "http://ryo:s3cret@searx ng:8080", "ryo:s3cret@searxng:8080"} {
		vars := minimal()
		vars["RYO_SEARXNG_URL"] = v
		_, err := LoadConfig(env(vars), true)
		if err == nil || !strings.Contains(err.Error(), "RYO_SEARXNG_URL: want an http(s) URL") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", v, err)
		}
	}
	for name, values := range map[string][]string{
		"RYO_SEARCH_RESULTS": {"0", "-1", "1000", "5.5", "five"},
		"RYO_SEARCH_CACHE":   {"-5m", "500ms", "forever", "5"},
		"RYO_SEARCH_TIMEOUT": {"0", "-1s", "off"},
	} {
		for _, v := range values {
			vars := minimal()
			vars[name] = v
			if _, err := LoadConfig(env(vars), true); err == nil || !strings.HasPrefix(err.Error(), name+": want") {
				t.Errorf("%s=%s: %v", name, v, err)
			}
		}
	}
	for _, v := range []string{"off", "OFF", "0"} {
		vars := minimal()
		vars["RYO_SEARCH_CACHE"] = v
		if c, err := LoadConfig(env(vars), true); err != nil || c.SearchCache != 0 {
			t.Errorf("RYO_SEARCH_CACHE=%s: %v, %v", v, c.SearchCache, err)
		}
	}
}

// A Brave key pasted with a space, a tab or a control byte inside it is
// refused at start, without quoting it: a header cannot carry it, and the
// search would otherwise fail later as if Brave were down.
func TestConfigBraveKeyShape(t *testing.T) {
	for _, v := range []string{"BSAkey with space", "BSAkey\x00nul", "BSAkey\tTAB", "BSAkey\r\nX-Other: 1"} {
		vars := minimal()
		vars["RYO_BRAVE_API_KEY"] = v
		_, err := LoadConfig(env(vars), true)
		if err == nil || !strings.HasPrefix(err.Error(), "RYO_BRAVE_API_KEY: ") || strings.Contains(err.Error(), "BSAkey") {
			t.Errorf("%q: %v", v, err)
		}
	}
	vars := minimal()
	vars["RYO_BRAVE_API_KEY"] = "  BSA_key-0123456789abcdefXYZ\n"
	if c, err := LoadConfig(env(vars), true); err != nil || c.BraveAPIKey.Reveal() != "BSA_key-0123456789abcdefXYZ" {
		t.Errorf("a key with spaces around it: %v", err)
	}
}

// Voice messages are transcribed only with a server named; its settings
// are read, and a bad one stops start-up naming it, without the key.
func TestConfigSpeechToText(t *testing.T) {
	c, err := LoadConfig(env(minimal()), true)
	if err != nil || c.STTURL != nil || c.STTModel != "whisper-1" || c.STTAPIKey != "" || c.STTTimeout != 2*time.Minute || c.STTMaxDuration != 10*time.Minute {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	vars := minimal()
	vars["RYO_STT_URL"] = "http://whisper:8080/v1"
	vars["RYO_STT_MODEL"] = "Systran/faster-whisper-small"
	vars["RYO_STT_API_KEY"] = "sk-sttsecret1"
	vars["RYO_STT_TIMEOUT"] = "45s"
	vars["RYO_STT_MAX_DURATION"] = "3m"
	c, err = LoadConfig(env(vars), true)
	if err != nil || c.STTURL.String() != "http://whisper:8080/v1" || c.STTModel != "Systran/faster-whisper-small" || c.STTAPIKey.Reveal() != "sk-sttsecret1" ||
		c.STTTimeout != 45*time.Second || c.STTMaxDuration != 3*time.Minute {
		t.Fatalf("values: %+v, %v", c, err)
	}
	for _, tt := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"RYO_STT_URL": "whisper:8080"}, "RYO_STT_URL: want an http(s) URL such as http://whisper:8080/v1"},
		{map[string]string{"RYO_STT_URL": "ftp://u:sk-sttsecret1@whisper"}, "RYO_STT_URL: want an http(s) URL"},
		{map[string]string{"RYO_STT_API_KEY": "sk-sttsecret1 extra"}, "RYO_STT_API_KEY: has a space"},
		{map[string]string{"RYO_STT_TIMEOUT": "10ms"}, "RYO_STT_TIMEOUT: want a duration of at least 1s"},
		{map[string]string{"RYO_STT_MAX_DURATION": "0s"}, "RYO_STT_MAX_DURATION: want a duration of at least 1s"},
	} {
		vars := minimal()
		for k, v := range tt.vars {
			vars[k] = v
		}
		_, err := LoadConfig(env(vars), true)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "sk-sttsecret1") {
			t.Errorf("%v: %v; want %q", tt.vars, err, tt.want)
		}
	}
}

func TestConfigWebhook(t *testing.T) {
	vars := minimal()
	cfg, err := LoadConfig(env(vars), true)
	if err != nil || cfg.WebhookURL != nil || cfg.WebhookConnections != 40 {
		t.Fatalf("defaults = %v, %d, %v; want polling", cfg.WebhookURL, cfg.WebhookConnections, err)
	}
	vars["RYO_WEBHOOK_URL"] = "https://bot.example.com/telegram/hook"
	vars["RYO_WEBHOOK_SECRET"] = "Abc_123-xyz"
	if cfg, err = LoadConfig(env(vars), true); err != nil || cfg.WebhookURL.Path != "/telegram/hook" || cfg.WebhookSecret != "Abc_123-xyz" {
		t.Fatalf("webhook = %v, %v", cfg.WebhookURL, err)
	}
	vars["RYO_HTTP_ADDR"] = "off"
	if _, err := LoadConfig(env(vars), true); err == nil || !strings.HasPrefix(err.Error(), "RYO_WEBHOOK_URL: needs RYO_HTTP_ADDR") {
		t.Fatalf("webhook without an HTTP address = %v", err)
	}
}

func TestDoctorWebhookDetail(t *testing.T) {
	if got := webhookDetail(bot.WebhookStatus{}); !strings.Contains(got, "no webhook") {
		t.Errorf("no webhook: %q", got)
	}
	got := webhookDetail(bot.WebhookStatus{URL: "https://bot.example.com/hook", Pending: 3, LastErrorDate: 1795651200,
		LastError: "Wrong response from the webhook: 500 Internal Server Error"})
	for _, want := range []string{"https://bot.example.com/hook", "3 update(s) pending", "2026-11-26T00:00:00Z", "500 Internal Server Error"} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor says %q; want %q in it", got, want)
		}
	}
}

func TestConfigOpenAICompatibleServer(t *testing.T) {
	c, err := LoadConfig(env(minimal()), true)
	if err != nil || c.OpenAIURL != nil || c.OpenAIAPIKey != "" {
		t.Fatalf("defaults: %+v, %v; want Ollama to answer", c, err)
	}
	vars := minimal()
	vars["RYO_OPENAI_URL"] = "http://vllm:8000/v1"
	vars["RYO_OPENAI_API_KEY"] = "sk-openaisecret1"
	c, err = LoadConfig(env(vars), true)
	if err != nil || c.OpenAIURL.String() != "http://vllm:8000/v1" || c.OpenAIAPIKey.Reveal() != "sk-openaisecret1" {
		t.Fatalf("values: %+v, %v", c, err)
	}
	for _, tt := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"RYO_OPENAI_URL": "vllm:8000"}, "RYO_OPENAI_URL: want an http(s) URL such as http://127.0.0.1:8000"},
		{map[string]string{"RYO_OPENAI_URL": "ftp://u:sk-openaisecret1@vllm"}, "RYO_OPENAI_URL: want an http(s) URL"},
		{map[string]string{"RYO_OPENAI_URL": "http://vllm:8000", "RYO_OPENAI_API_KEY": "sk-openaisecret1 extra"}, "RYO_OPENAI_API_KEY: has a space"},
		{map[string]string{"RYO_OPENAI_API_KEY": "sk-openaisecret1"}, "RYO_OPENAI_API_KEY: is set but RYO_OPENAI_URL is not"},
		{map[string]string{"RYO_OPENAI_URL": "https://gw.example.com/v1?api_key=sk-openaisecret1"}, "RYO_OPENAI_URL: has a query"},
		{map[string]string{"RYO_OPENAI_URL": "https://gw.example.com/v1#sk-openaisecret1"}, "RYO_OPENAI_URL: has a fragment"},
	} {
		vars := minimal()
		for k, v := range tt.vars {
			vars[k] = v
		}
		_, err := LoadConfig(env(vars), true)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "sk-openaisecret1") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v; want %q", tt.vars, err, tt.want)
		}
	}
}
