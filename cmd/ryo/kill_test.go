package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/ollamatest"
)

// The built binary, killed with SIGKILL in the middle of a slow turn and
// started again, answers the message exactly once.
func TestKill9DuringASlowTurnAnswersOnce(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Hold: hold})

	first := h.startBinary(bin)
	q := h.tg.SendText(dm, alice, "a question for a slow model")
	h.waitFor("the status message", func() bool { return len(h.tg.BotMessages(dm.ID)) == 1 })
	if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == 1 }); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the status message remembered", func() bool { return statusRemembered(t, h.db(), ryo.Place{ChatID: dm.ID}) })
	if err := first.Process.Kill(); err != nil { // SIGKILL: no shutdown code runs
		t.Fatal(err)
	}
	first.Wait()

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Here is the answer, once.")})
	second := h.startBinary(bin)
	checkAnsweredOnce(t, h.answer(dm, q.ID, "Here is the answer, once."), "Here is the answer, once.")
	if !strings.Contains(h.logs.String(), "resuming unfinished updates") {
		t.Fatal("the second run did not say it resumed the interrupted update")
	}
	h.waitFor("the update done", func() bool { return updateState(t, h.db(), ryo.Place{ChatID: dm.ID}) == memory.StateDone })
	got := history(t, h.db(), ryo.Place{ChatID: dm.ID})
	if strings.Join(got, "|") != "user: a question for a slow model|assistant: Here is the answer, once." {
		t.Fatalf("stored history = %q", got)
	}
	second.Process.Signal(syscall.SIGTERM)
	if err := second.Wait(); err != nil {
		t.Fatalf("ryo after SIGTERM: %v; want a clean exit", err)
	}
}

// startBinary runs the built ryo with the harness's settings and nothing
// else from the environment; it is killed when the test ends.
func (h *harness) startBinary(bin string) *exec.Cmd {
	h.t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = h.t.TempDir() // no .env there
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range h.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = h.logs, h.logs
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// builtBinary builds ryo into the test's directory, for tests that kill
// it; they are skipped with -short.
func builtBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "ryo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
