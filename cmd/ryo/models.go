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

// startModels connects to the Ollama servers: one is asked directly, as it
// always was; several make a pool, whose state is kept fresh until stop is
// called or ctx ends, and shown in the metrics of reg.
func startModels(ctx context.Context, cfg Config, clock ryo.Clock, reg prometheus.Registerer, log *slog.Logger) (local localModels, stop func()) {
	clients := ollamaClients(cfg)
	if len(clients) == 1 {
		return clients[0], func() {}
	}
	members := make([]modelpool.Member, len(clients))
	for i, c := range clients {
		members[i] = modelpool.Member{Name: cfg.OllamaHosts[i].URL.Host, Server: c, Limit: cfg.OllamaHosts[i].Parallel}
	}
	pool := modelpool.New(modelpool.Config{Model: cfg.Model, VisionModel: cfg.VisionModel, EmbedModel: cfg.EmbedModel, Clock: clock},
		log, members...)
	reg.MustRegister(metrics.NewServers(pool))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { pool.Run(ctx); close(done) }()
	return pool, func() { cancel(); <-done }
}
