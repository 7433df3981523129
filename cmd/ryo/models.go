package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/metrics"
	"github.com/ryo-bot/ryo/modelpool"
	"github.com/ryo-bot/ryo/ollama"
)

// models is what the agent, the bot and recall ask of the model servers:
// one Ollama client, or a pool of several.
type models interface {
	Chat(ctx context.Context, req ryo.ModelRequest) (ryo.ModelReply, error)
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	VisionModel(ctx context.Context) (string, error)
	Installed(ctx context.Context) ([]ryo.InstalledModel, error)
	Capabilities(ctx context.Context, name string) ([]ryo.Capability, error)
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

// startModels connects to the Ollama servers: one is asked directly, as it
// always was; several make a pool, whose state is kept fresh until ctx
// ends and shown in the metrics of reg. Each server is checked in the
// background; stop waits for the check and the pool.
func startModels(ctx context.Context, cfg Config, clock ryo.Clock, reg prometheus.Registerer, log *slog.Logger) (models, func()) {
	clients := ollamaClients(cfg)
	var model models = clients[0]
	done := make(chan struct{})
	if len(clients) == 1 {
		close(done)
	} else {
		members := make([]modelpool.Member, len(clients))
		for i, c := range clients {
			members[i] = modelpool.Member{Name: cfg.OllamaHosts[i].URL.Host, Server: c, Limit: cfg.OllamaHosts[i].Parallel}
		}
		pool := modelpool.New(modelpool.Config{Model: cfg.Model, VisionModel: cfg.VisionModel, EmbedModel: cfg.EmbedModel, Clock: clock},
			log, members...)
		reg.MustRegister(metrics.NewServers(pool))
		go func() { pool.Run(ctx); close(done) }()
		model = pool
	}
	checked := make(chan struct{})
	go func() { checkModels(ctx, clients, model, log); close(checked) }()
	return model, func() { <-checked; <-done }
}

// checkModels warns at start when an Ollama server cannot be reached or
// lacks the model; the bot runs anyway and tells users the same when they
// ask.
func checkModels(ctx context.Context, clients []*ollama.Client, model models, log *slog.Logger) {
	ready := 0
	for _, c := range clients {
		version, err := c.Check(ctx)
		if err != nil {
			log.Warn("model server check failed; turns will fail until it is fixed", "server", c.Host(), "err", err)
			continue
		}
		ready++
		log.Info("model server ready", "server", c.Host(), "ollama_version", version, "model", c.Model())
	}
	if ready == 0 {
		return
	}
	switch vision, err := model.VisionModel(ctx); {
	case err != nil:
		log.Warn("cannot tell whether the model reads pictures; it is asked again at the next photo", "err", err)
	case vision == "":
		log.Info("no model reads pictures: a photo gets one sentence naming RYO_VISION_MODEL")
	default:
		log.Info("photos are read", "vision_model", vision)
	}
}
