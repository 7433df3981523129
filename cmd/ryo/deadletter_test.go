package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ryo-bot/ryo/memory/memorytest"
	"github.com/ryo-bot/ryo/ollamatest"
	"github.com/ryo-bot/ryo/telegramtest"
)

// echoModel answers every question with "echo: " and its last line.
func echoModel(h *harness) {
	h.llm.Handle(func(req ollamatest.Request) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		return ollamatest.Reply{Content: envelope("echo: " + last[strings.LastIndex(last, "\n")+1:])}
	})
}

// refusePoison makes the inbox refuse every update whose message mentions
// poison, as a bug in ryo or a change at Telegram could; the returned func
// is the fix.
func refusePoison(t *testing.T, url string) (fix func()) {
	t.Helper()
	memorytest.Exec(t, url, `create function refuse_poison() returns trigger language plpgsql as $$
		begin
			if new.raw -> 'message' ->> 'text' like '%poison%' then
				raise exception 'poisoned update %', new.update_id;
			end if;
			return new;
		end $$;
		create trigger refuse_poison before insert on updates for each row execute function refuse_poison()`)
	return func() { memorytest.Exec(t, url, `drop trigger refuse_poison on updates`) }
}

// An update the inbox refuses lands in the dead letter, confirmed to
// Telegram and told to its sender, while the next message, in another chat,
// is answered at once; after the fix an admin retries it and it is
// answered.
func TestRefusedUpdateIsKeptAndOthersGoOn(t *testing.T) {
	h := newHarness(t)
	h.env["RYO_ADMIN_IDS"] = strconv.FormatInt(alice.ID, 10)
	echoModel(h)
	h.start()
	fix := refusePoison(t, h.env["DATABASE_URL"])

	bad := h.tg.SendText(team, bob, "@ryo_test_bot poison pill")
	good := h.tg.SendText(dm, alice, "are you there?")
	h.answer(dm, good.ID, "echo: are you there?")
	h.answer(team, bad.ID, "couldn't take that message in")
	letters, total, err := h.db().DeadLetters(bg(t), 0, 10)
	if err != nil || total != 1 || letters[0].ChatID != team.ID || !bytes.Contains(letters[0].Raw, []byte("poison pill")) ||
		!strings.Contains(letters[0].Error, "poisoned update") {
		t.Fatalf("dead letter = %+v, %d, %v; want the poisoned update with its raw JSON and the error", letters, total, err)
	}
	h.waitFor("the refused update confirmed to Telegram", func() bool { return h.tg.ConfirmedUpdateID() >= letters[0].UpdateID })
	if n := strings.Count(h.logs.String(), "the inbox refused an update"); n != 1 {
		t.Fatalf("the refusal is logged %d times; want once:\n%s", n, h.logs.String())
	}
	var out bytes.Buffer
	cfg, _ := LoadConfig(env(h.env), true)
	doctorDatabaseLine(t, cfg, &out)
	if !strings.Contains(out.String(), "1 update(s) in the dead letter") {
		t.Fatalf("doctor says:\n%s", out.String())
	}

	fix()
	list := h.tg.SendText(dm, alice, "/deadletter")
	h.answer(dm, list.ID, fmt.Sprintf("#%d · message · chat %d", letters[0].UpdateID, team.ID))
	retry := h.tg.SendText(dm, alice, "/deadletter retry all")
	h.answer(dm, retry.ID, "Running 1 update again.")
	h.answer(team, bad.ID, "echo: [Bob]: @ryo_test_bot poison pill")
	if n, _ := h.db().DeadCount(bg(t)); n != 0 {
		t.Fatalf("dead letter after the retry holds %d updates", n)
	}
}

// doctorDatabaseLine prints doctor's database line for cfg.
func doctorDatabaseLine(t *testing.T, cfg Config, out *bytes.Buffer) {
	t.Helper()
	detail, err := doctorDatabase(bg(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString(detail)
}

// An update whose handling fails every time — the model's answer cannot be
// stored, here — lands in the dead letter; `ryo deadletter` lists it, and
// `ryo deadletter retry` hands it back to the running bot, which answers it
// once the cause is gone.
func TestFailedUpdateIsRetriedFromTheCommandLine(t *testing.T) {
	h := newHarness(t)
	echoModel(h)
	h.start()
	url := h.env["DATABASE_URL"]
	memorytest.Exec(t, url, `alter table messages add constraint no_cake check (text not like '%cake%')`)
	q := h.tg.SendText(dm, alice, "cake please")
	h.answer(dm, q.ID, "something went wrong on my side")
	h.waitFor("the failure in the dead letter", func() bool { n, _ := h.db().DeadCount(bg(t)); return n == 1 })

	for _, name := range settingNames {
		t.Setenv(name, "")
	}
	t.Setenv("DATABASE_URL", url)
	var out bytes.Buffer
	if code := run(bg(t), []string{"deadletter"}, &out, &out); code != exitOK || !strings.Contains(out.String(), "1 update(s) in the dead letter") ||
		!strings.Contains(out.String(), "process after 1 attempt(s)") || !strings.Contains(out.String(), "cake please") {
		t.Fatalf("ryo deadletter = %d:\n%s", code, out.String())
	}
	memorytest.Exec(t, url, `alter table messages drop constraint no_cake`)
	out.Reset()
	if code := run(bg(t), []string{"deadletter", "retry", "all"}, &out, &out); code != exitOK || !strings.Contains(out.String(), "back in the inbox") {
		t.Fatalf("ryo deadletter retry all = %d:\n%s", code, out.String())
	}
	h.answer(dm, q.ID, "echo: cake please")
}

// A message that crashes ryo every time it is handled — the process is
// killed in the middle of it, again and again — is given up after
// RYO_MAX_ATTEMPTS starts instead of taking ryo down forever: the person
// gets an apology, the update waits in the dead letter, and once retried it
// is answered.
func TestCrashLoopIsGivenUpAndKept(t *testing.T) {
	bin := builtBinary(t)
	h := newHarness(t)
	h.env["RYO_MAX_ATTEMPTS"] = "2"
	hold := make(chan struct{})
	defer close(hold)
	h.llm.Enqueue(ollamatest.Reply{Hold: hold}, ollamatest.Reply{Hold: hold})
	var q telegramtest.Message
	for crash := 1; crash <= 2; crash++ {
		proc := h.startBinary(bin)
		if crash == 1 {
			q = h.tg.SendText(dm, alice, "a question that crashes ryo")
		}
		if err := h.llm.Wait(bg(t), func() bool { return len(h.llm.Requests()) == crash }); err != nil {
			t.Fatal(err)
		}
		proc.Process.Kill()
		proc.Wait()
	}
	h.startBinary(bin)
	h.answer(dm, q.ID, "something went wrong on my side")
	h.waitFor("the update in the dead letter", func() bool { n, _ := h.db().DeadCount(bg(t)); return n == 1 })
	letters, _, _ := h.db().DeadLetters(bg(t), 0, 1)
	if letters[0].Attempts != 3 || !strings.Contains(letters[0].Error, "gave up after 3 attempts") || len(h.llm.Requests()) != 2 {
		t.Fatalf("dead letter = %+v after %d model calls; want it given up at the third start, without asking the model", letters, len(h.llm.Requests()))
	}

	h.llm.Enqueue(ollamatest.Reply{Content: envelope("Fine now.")})
	for _, name := range settingNames {
		t.Setenv(name, "")
	}
	t.Setenv("DATABASE_URL", h.env["DATABASE_URL"])
	var out bytes.Buffer
	if code := run(bg(t), []string{"deadletter", "retry", strconv.FormatInt(letters[0].UpdateID, 10)}, &out, &out); code != exitOK {
		t.Fatalf("ryo deadletter retry = %d:\n%s", code, out.String())
	}
	h.answer(dm, q.ID, "Fine now.")
}
