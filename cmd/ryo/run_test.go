package main

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/migrations"
)

func TestRunExitCodes(t *testing.T) {
	for _, name := range settingNames {
		t.Setenv(name, "") // empty counts as unset
	}
	var out, errOut bytes.Buffer
	if code := run(bg(t), []string{"serve"}, &out, &errOut); code != exitConfig ||
		strings.TrimSpace(errOut.String()) != "ryo: config: TELEGRAM_BOT_TOKEN: missing: set it to the token @BotFather gave you (123456789:AA...)" {
		t.Fatalf("serve without a token = %d, %q; want exit 2 and one line naming the setting", code, errOut.String())
	}
	errOut.Reset()
	if code := run(bg(t), []string{"fly"}, &out, &errOut); code != exitConfig || !strings.Contains(errOut.String(), `unknown command "fly"`) {
		t.Fatalf("unknown command = %d, %q", code, errOut.String())
	}
}

func TestRunMigrate(t *testing.T) {
	for _, name := range settingNames {
		t.Setenv(name, "")
	}
	t.Setenv("DATABASE_URL", memorytest.URL(t))
	var out, errOut bytes.Buffer
	if code := run(bg(t), []string{"migrate"}, &out, &errOut); code != exitOK {
		t.Fatalf("migrate = %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "applied migration") || !strings.Contains(errOut.String(), "0001_init.sql") {
		t.Fatalf("migrate log = %s", errOut.String())
	}
	errOut.Reset()
	if code := run(bg(t), []string{"migrate"}, &out, &errOut); code != exitOK || strings.Contains(errOut.String(), "applied migration") {
		t.Fatalf("second migrate = %d: %s; want nothing applied", code, errOut.String())
	}
}

func TestDoctor(t *testing.T) {
	h := newHarness(t)
	cfg, err := LoadConfig(env(h.env), true)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := doctor(bg(t), cfg, &out); code != exitOK {
		t.Fatalf("doctor = %d:\n%s", code, out.String())
	}
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v, %v", files, err)
	}
	newest := strings.SplitN(files[len(files)-1], "_", 2)[0]
	for _, want := range []string{"✓ database: reachable; schema at 0000, " + newest + " pending", "✓ ollama: Ollama 0.17.4 has llama3.2", "✓ telegram: @ryo_test_bot"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	h.env["RYO_MODEL"] = "absent"
	cfg, _ = LoadConfig(env(h.env), true)
	out.Reset()
	if code := doctor(bg(t), cfg, &out); code != exitFailed || !strings.Contains(out.String(), `✗ ollama: model "absent" is not installed`) {
		t.Fatalf("doctor with a missing model = %d:\n%s", code, out.String())
	}
}
