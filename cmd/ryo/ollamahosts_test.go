package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/clocktest"
	"github.com/ryo-bot/ryo/openaitest"
)

// One server written two ways is still one server: a pool of it twice
// would send it twice its limit.
func TestConfigRejectsTheSameOllamaServerWrittenTwoWays(t *testing.T) {
	for name, hosts := range map[string]string{
		"case":            "gpu1,GPU1",
		"trailing slash":  "gpu1,http://gpu1:11434/",
		"default port":    "http://gpu1,http://gpu1:80",
		"https port":      "https://gpu1,https://gpu1:443",
		"scheme":          "http://gpu1:11434,https://gpu1:11434",
		"ipv6":            "http://[::1]:11434=2,[0:0::1]",
		"path with slash": "http://gpu1:11434/ollama,http://gpu1:11434/ollama/",
	} {
		t.Run(name, func(t *testing.T) {
			vars := minimal()
			vars["OLLAMA_HOST"] = hosts
			_, err := LoadConfig(env(vars), true)
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), "is listed twice") {
				t.Fatalf("LoadConfig(%q) = %v; want the server listed twice", hosts, err)
			}
		})
	}
}

// A password may hold "=", and spaces may sit around "=N".
func TestConfigOllamaServerEntriesAsWritten(t *testing.T) {
	for hosts, want := range map[string][]string{
		"http://u:p=w@gpu1:11434":        {"http://u:p=w@gpu1:11434 1"},
		"http://u:p=w@gpu1:11434=3,gpu2": {"http://u:p=w@gpu1:11434 3", "http://gpu2:11434 1"},
		" gpu1 = 4 , gpu2=2":             {"http://gpu1:11434 4", "http://gpu2:11434 2"},
		"http://[::1]:11434=2,[::2]":     {"http://[::1]:11434 2", "http://[::2]:11434 1"},
	} {
		vars := minimal()
		vars["OLLAMA_HOST"] = hosts
		c, err := LoadConfig(env(vars), true)
		if err != nil {
			t.Errorf("LoadConfig(%q) = %v", hosts, err)
			continue
		}
		var got []string
		for _, h := range c.OllamaHosts {
			got = append(got, h.URL.String()+" "+string(rune('0'+h.Parallel)))
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("LoadConfig(%q) = %q; want %q", hosts, got, want)
		}
	}
}

// Two servers on one host, told apart by their paths (behind one proxy),
// are two series in the metrics, not one collected twice, and neither
// name shows a password.
func TestPoolMetricsTellServersOnOneHostApart(t *testing.T) {
	vars := minimal()
	vars["OLLAMA_HOST"] = "http://u:secret@127.0.0.1:1/a,http://u:secret@127.0.0.1:1/b"
	cfg, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnectTimeout = time.Second
	reg := prometheus.NewRegistry()
	_, _, stop := startModels(context.Background(), cfg, clocktest.New(time.Unix(0, 0)), reg, slog.New(slog.DiscardHandler))
	defer stop()
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	names := map[string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), "secret") {
					t.Errorf("label %s=%q shows the password", l.GetName(), l.GetValue())
				}
				names[l.GetValue()] = true
			}
		}
	}
	if len(names) != 2 {
		t.Fatalf("servers in the metrics: %v; want two", names)
	}
}

// RYO_OPENAI_URL may name several OpenAI-compatible servers as OLLAMA_HOST
// does Ollama servers; a server twice, or a query anywhere, is refused.
func TestConfigSeveralOpenAIServers(t *testing.T) {
	vars := minimal()
	vars["RYO_OPENAI_URL"] = "http://vllm1:8000=8, https://vllm2/v1 ,http://k:p=w@lm:1234=2"
	vars["RYO_OLLAMA_PARALLEL"] = "3"
	c, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range c.OpenAIServers {
		got = append(got, fmt.Sprintf("%s %d", h.URL, h.Parallel))
	}
	if want := "http://vllm1:8000 8,https://vllm2/v1 3,http://k:p=w@lm:1234 2"; strings.Join(got, ",") != want || c.OpenAIURL.String() != "http://vllm1:8000" {
		t.Fatalf("servers %q, first %v; want %q", got, c.OpenAIURL, want)
	}
	for _, bad := range []string{"https://gw.example/v1?api-version=2024-06-01", "http://a:8000,https://gw.example/v1#k=2", "http://vllm1:8000,http://VLLM1:8000/", "vllm1:8000", "http://a:8000,", "http://a:8000=0"} {
		vars["RYO_OPENAI_URL"] = bad
		if _, err := LoadConfig(env(vars), true); err == nil || !strings.HasPrefix(err.Error(), "RYO_OPENAI_URL: ") {
			t.Errorf("RYO_OPENAI_URL=%q: err %v; want it refused", bad, err)
		}
	}
}

// Several OpenAI-compatible servers make a pool that answers the turns,
// shown in the metrics beside the Ollama servers.
func TestSeveralOpenAIServersAnswerAsAPool(t *testing.T) {
	a, b := openaitest.NewServer("llama3.2"), openaitest.NewServer("llama3.2")
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	a.Handle(func(openaitest.Request) openaitest.Reply { return openaitest.Reply{Status: 502, Error: "bad gateway"} })
	vars := minimal()
	vars["RYO_OPENAI_URL"] = a.URL() + "=2," + b.URL()
	vars["RYO_MODEL"] = "llama3.2"
	cfg, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	_, answer, stop := startModels(context.Background(), cfg, clocktest.New(time.Unix(0, 0)), reg, slog.New(slog.DiscardHandler))
	defer stop()
	reply, err := answer.Chat(context.Background(), ryo.ModelRequest{Messages: []ryo.ModelMessage{{Role: ryo.ModelUser, Content: "hi"}}})
	if err != nil || reply.Content == "" || len(b.Requests()) != 1 {
		t.Fatalf("reply %q, err %v, B asked %d times; want B's answer", reply.Content, err, len(b.Requests()))
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			servers[m.GetLabel()[0].GetValue()] = true
		}
	}
	if !servers[strings.TrimPrefix(a.URL(), "http://")+"/v1"] || !servers[strings.TrimPrefix(b.URL(), "http://")+"/v1"] {
		t.Fatalf("servers in the metrics %v; want both OpenAI-compatible servers", servers)
	}
}

// Ollama servers that also serve the OpenAI-compatible API, named in both
// OLLAMA_HOST and RYO_OPENAI_URL, are two series each in the metrics, not
// one collected twice.
func TestPoolMetricsTellTheTwoAPIsOfOneServerApart(t *testing.T) {
	vars := minimal()
	vars["OLLAMA_HOST"] = "http://127.0.0.1:1,http://127.0.0.1:2"
	vars["RYO_OPENAI_URL"] = "http://127.0.0.1:1,http://127.0.0.1:2"
	cfg, err := LoadConfig(env(vars), true)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	_, _, stop := startModels(context.Background(), cfg, clocktest.New(time.Unix(0, 0)), reg, slog.New(slog.DiscardHandler))
	defer stop()
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("gather: %v", err)
	}
}

// An OpenAI-compatible server's address with and without its /v1 is one
// API base: listed twice.
func TestConfigOpenAIServerWithAndWithoutV1IsOne(t *testing.T) {
	vars := minimal()
	vars["RYO_OPENAI_URL"] = "http://vllm1:8000,http://vllm1:8000/v1/"
	if _, err := LoadConfig(env(vars), true); err == nil || !strings.Contains(err.Error(), "is listed twice") {
		t.Fatalf("err %v; want the server listed twice", err)
	}
}
