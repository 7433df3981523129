package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/metrics"
	"github.com/ryo-bot/ryo/modelpool"
	"github.com/ryo-bot/ryo/ollama"
	"github.com/ryo-bot/ryo/openai"
)

// localModels are the Ollama servers of OLLAMA_HOST: one client, or a
// pool of several. They answer turns unless RYO_OPENAI_URL names another
// server, and embed texts.
type localModels interface {
	modelServer
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ollamaClients makes a client for each server of OLLAMA_HOST.
func ollamaClients(cfg Config) []*ollama.Client {
	clients := make([]*ollama.Client, len(cfg.OllamaHosts))
	for i, h := range cfg.OllamaHosts {
		clients[i] = ollama.New(ollama.Config{Host: h.URL, Model: cfg.Model, EmbedModel: cfg.EmbedModel, VisionModel: cfg.VisionModel,
			KeepAlive: cfg.KeepAlive, NumCtx: cfg.NumCtx, NumPredict: cfg.NumPredict,
			ConnectTimeout: cfg.ConnectTimeout, FirstTokenTimeout: cfg.FirstTokenTimeout, Timeout: cfg.ModelTimeout})
	}
	return clients
}

// openAIClients makes a client for each server of RYO_OPENAI_URL.
func openAIClients(cfg Config, clock ryo.Clock) []*openai.Client {
	clients := make([]*openai.Client, len(cfg.OpenAIServers))
	for i, s := range cfg.OpenAIServers {
		clients[i] = openai.New(openai.Config{URL: s.URL, APIKey: cfg.OpenAIAPIKey, Model: cfg.Model, VisionModel: cfg.VisionModel,
			NumPredict: cfg.NumPredict, ConnectTimeout: cfg.ConnectTimeout, FirstTokenTimeout: cfg.FirstTokenTimeout, Timeout: cfg.ModelTimeout,
			Clock: clock})
	}
	return clients
}

// startModels connects to the model servers. local is the Ollama servers
// of OLLAMA_HOST; answer is the server that answers turns: local, or the
// OpenAI-compatible servers of RYO_OPENAI_URL when it names any. One
// server is asked directly, as it always was; several make a pool, whose
// state is kept fresh until stop is called or ctx ends, and shown in the
// metrics of reg.
func startModels(ctx context.Context, cfg Config, clock ryo.Clock, reg prometheus.Registerer, log *slog.Logger) (local localModels, answer modelServer, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var pools servers
	var done []chan struct{}
	start := func(pool *modelpool.Pool) *modelpool.Pool {
		pools = append(pools, pool)
		d := make(chan struct{})
		done = append(done, d)
		go func() { pool.Run(ctx); close(d) }()
		return pool
	}
	stop = func() {
		cancel()
		for _, d := range done {
			<-d
		}
	}

	ollamas := ollamaClients(cfg)
	if len(ollamas) == 1 {
		local = ollamas[0]
	} else {
		members := make([]modelpool.Member, len(ollamas))
		for i, c := range ollamas {
			members[i] = modelpool.Member{Name: cfg.OllamaHosts[i].Name(), Server: c, Limit: cfg.OllamaHosts[i].Parallel}
		}
		local = start(modelpool.New(modelpool.Config{Model: cfg.Model, VisionModel: cfg.VisionModel, EmbedModel: cfg.EmbedModel, Clock: clock},
			log, members...))
	}

	answer = local
	switch remote := openAIClients(cfg, clock); len(remote) {
	case 0:
	case 1:
		answer = remote[0]
	default:
		members := make([]modelpool.Member, len(remote))
		for i, c := range remote {
			members[i] = modelpool.Member{Name: cfg.OpenAIServers[i].Name(), Server: openai.Member{Client: c}, Limit: cfg.OpenAIServers[i].Parallel}
		}
		answer = start(modelpool.New(modelpool.Config{Model: cfg.Model, VisionModel: cfg.VisionModel, Clock: clock}, log, members...))
	}
	if len(cfg.OpenAIServers) > 0 {
		log.Info("the model answers from an OpenAI-compatible server", "url", hostList(cfg.OpenAIServers), "model", cfg.Model,
			"key", cfg.OpenAIAPIKey != "", "embeddings", cfg.EmbedModel != "")
	}
	if len(pools) > 0 {
		reg.MustRegister(metrics.NewServers(pools))
	}
	return local, answer, stop
}

// servers is the pools of model servers, one after another in the
// metrics.
type servers []*modelpool.Pool

// Servers is the state of every server of every pool.
func (s servers) Servers() []modelpool.Status {
	var out []modelpool.Status
	for _, p := range s {
		out = append(out, p.Servers()...)
	}
	return out
}
