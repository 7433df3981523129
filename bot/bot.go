package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/agent"
	"github.com/ryo-bot/ryo/bot/delivery"
	"github.com/ryo-bot/ryo/bot/intake"
	"github.com/ryo-bot/ryo/lang"
	"github.com/ryo-bot/ryo/memory"
	"github.com/ryo-bot/ryo/stages"
	"github.com/ryo-bot/ryo/toolbus"
	"github.com/ryo-bot/ryo/tools"
)

// Config is what the bot needs to know.
type Config struct {
	Token         ryo.Secret
	APIURL        string
	AdminIDs      []int64
	Workers       int           // chats answered at once
	PollTimeout   time.Duration // long-poll wait of getUpdates
	CallTimeout   time.Duration // deadline of every other Telegram call
	Unpaced       bool          // Telegram's flood limits lifted, for a Bot API server without them
	HistoryLimit  int           // messages of context given to the model
	TurnTimeout   time.Duration // how long one answer may take, tool rounds included
	MaxAttempts   int           // starts of one update before it is given up
	ShutdownGrace time.Duration // how long running turns may finish at shutdown
	NotifyAfter   time.Duration // answers slower than this arrive as a new message
	Drafts        bool          // stream replies into drafts in private chats
	Tools         *toolbus.Registry
	// Tiers say which of Tools each person may use; every tool to everyone
	// when nil.
	Tiers        *toolbus.Tiers
	ConfirmTTL   time.Duration    // how long an action waits for its yes
	AdminsDecide bool             // admins may decide anyone's actions
	Location     *time.Location   // the time zone of times shown to people
	Access       string           // AccessOpen or AccessAllowlist
	Recall       tools.Recaller   // how memories are found; its Store is the bot's database when nil
	Clock        ryo.Clock        // the system clock when nil
	Retention    memory.Retention // how long what is kept for a while is kept; zero: forever
	// PersonRate and PersonBurst are one person's allowance of turns and
	// commands: PersonBurst at once, then PersonRate a minute (12 and 6
	// when zero).
	PersonRate, PersonBurst int
	// Knowledge is how /knowledge add reads documents, and its bounds.
	Knowledge KnowledgeConfig
	// Documents bounds the files people send the bot to read.
	Documents DocumentConfig
	// Vision says which model reads the photos people send; none does
	// when nil.
	Vision Vision
	// Models lists the model server's models for /model, and says what
	// each can do; /model lists none when nil.
	Models Models
	// Listen transcribes the recordings people send (voice notes, audio
	// files, video notes); none is transcribed when nil.
	Listen Listener
	// Quotas bound how much each tier may ask (RYO_QUOTA); /quota gives
	// one person theirs. None is configured when nil.
	Quotas *Quotas
	// Metrics is told what the bot does; nothing is told when nil.
	Metrics Metrics
	// Tracer traces each turn (span.go); none when nil.
	Tracer Tracer
	// WebhookURL, when set, is where Telegram posts updates instead of
	// the bot polling; the caller serves Webhook at its path.
	WebhookURL         string
	WebhookSecret      ryo.Secret // checked on every posted update
	WebhookConnections int        // Telegram's max_connections; DefaultWebhookConnections when 0
	// ReplicaID names this process among the replicas sharing the
	// database (replica.go); a random name when empty.
	ReplicaID string
}

// Answerer answers a turn; *agent.Agent is one.
type Answerer interface {
	Run(ctx context.Context, in agent.Input) (agent.Output, error)
}

// Bot is the running Telegram bot.
type Bot struct {
	cfg   Config
	log   *slog.Logger
	db    *memory.DB
	agent Answerer
	model string // named in the stored metadata
	tg    *delivery.Telegram
	// groupCalls shares the calls made in groups with other ryo processes
	// on the database, for the groups' twenty a minute.
	groupCalls *memory.GroupCalls
	stages     *stages.Orchestrator
	// commandTools are the tools the bot's own commands hold for a yes:
	// a person's forget and forget_me, an admin's forget_any. The model
	// never sees them.
	commandTools *toolbus.Registry
	poller       *intake.Poller
	me           ryo.User

	flood      *floodGuard    // every person's allowance of turns and commands
	pageTurns  *floodGuard    // every person's allowance of turns of a list's pages
	speakers   speakers       // whose turn was each group's last
	missing    missingModels  // chats whose chosen model was found gone, logged once
	queue      *dispatcher    // set by Run before any update runs
	running    running        // the turns running here, which a stop can reach (stop.go)
	editing    sync.Mutex     // one edit at a time is judged on its lane (edit.go)
	modes      answerModes    // each group's answer mode, read once (answermode.go)
	holds      quotaHolds     // the answers of turns running, held against their people's quotas (quota.go)
	traced     sentTraces     // the traces sent lately, sent once a minute (inspect.go)
	background sync.WaitGroup // notices sent beside the poller; Run waits for them
	hook       webhookGate    // open while posted updates are taken (webhook.go)
	leases     *leases        // the chats this replica holds (replica.go)
}

// New returns a bot; Run starts it.
func New(cfg Config, log *slog.Logger, db *memory.DB, answerer Answerer, model string) (*Bot, error) {
	if cfg.TurnTimeout == 0 {
		cfg.TurnTimeout = 10 * time.Minute
	}
	if cfg.ConfirmTTL == 0 {
		cfg.ConfirmTTL = 15 * time.Minute
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Access == "" {
		cfg.Access = AccessOpen
	}
	if cfg.PersonRate == 0 {
		cfg.PersonRate = 12
	}
	if cfg.PersonBurst == 0 {
		cfg.PersonBurst = 6
	}
	if cfg.Tools == nil {
		cfg.Tools = toolbus.NewRegistry()
	}
	if cfg.Clock == nil {
		cfg.Clock = ryo.SystemClock{}
	}
	if cfg.Recall.Store == nil {
		cfg.Recall = tools.Recaller{Store: db, Log: log}
	}
	groupCalls := memory.NewGroupCalls(db)
	held := &leases{}
	fence := func(chat int64) error { return held.fence(chat, cfg.Clock.Now()) }
	t, err := delivery.New(delivery.Options{Token: cfg.Token, APIURL: cfg.APIURL, CallTimeout: cfg.CallTimeout, Clock: cfg.Clock,
		Unpaced: cfg.Unpaced, Observer: cfg.Metrics, Ledger: groupCalls, Tracer: cfg.Tracer, Fence: fence}, log)
	if err != nil {
		return nil, err
	}
	o := stages.New(t, stages.Config{NotifyAfter: cfg.NotifyAfter, Drafts: cfg.Drafts, Log: log, Clock: cfg.Clock})
	cmds := toolbus.NewRegistry()
	cmds.SetClock(cfg.Clock)
	cmds.SetObserver(cfg.Metrics)
	cmds.SetTracer(cfg.Tracer)
	for _, s := range []toolbus.Spec{tools.Forget(cfg.Recall), tools.AdminForget(cfg.Recall), forgetMeTool(db), knowledgeDeleteTool(db)} {
		if err := cmds.Register(s); err != nil {
			return nil, err
		}
	}
	return &Bot{cfg: cfg, log: log, db: db, agent: answerer, model: model, tg: t, groupCalls: groupCalls, leases: held, stages: o, commandTools: cmds, flood: newFloodGuard(cfg.PersonRate, cfg.PersonBurst),
		pageTurns: newFloodGuard(3*cfg.PersonRate, 2*cfg.PersonBurst),
		speakers:  speakers{last: map[int64]int64{}}, poller: intake.NewPoller(intake.Options{Token: cfg.Token, APIURL: cfg.APIURL, PollTimeout: cfg.PollTimeout,
			CallTimeout: cfg.CallTimeout, Clock: cfg.Clock, Observer: cfg.Metrics}, log)}, nil
}

// ErrUnauthorized is returned by Run when Telegram rejects the token.
var ErrUnauthorized = errors.New("TELEGRAM_BOT_TOKEN was rejected by Telegram (401 Unauthorized): check the token from @BotFather")

// Run introduces the bot to Telegram, resumes the updates a previous run left
// unfinished, and polls for new ones until ctx ends. Then it lets running
// turns finish for the shutdown grace period, and stops. Every call to
// Telegram goes through the delivery engine, which runs until the turns are
// done.
func (b *Bot) Run(ctx context.Context) error {
	engineCtx, stopEngine := context.WithCancel(context.WithoutCancel(ctx))
	engineDone := make(chan struct{})
	go func() { b.tg.Run(engineCtx); close(engineDone) }()
	// The calls in groups are written down until the engine's last one.
	ledgerCtx, stopLedger := context.WithCancel(context.WithoutCancel(ctx))
	ledgerDone := make(chan struct{})
	go func() { b.groupCalls.Run(ledgerCtx); close(ledgerDone) }()
	defer func() { stopEngine(); <-engineDone; stopLedger(); <-ledgerDone }()
	defer b.background.Wait()
	if err := b.introduce(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	if err := b.join(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // stopped while starting
		}
		return err
	}
	b.setMenu(ctx)
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	defer b.leases.r.Leave(work) // the others take this one's chats at once
	d := newDispatcher(work, b.cfg.Clock, b.cfg.Workers, b.process)
	d.idle = func(chat int64) { b.chatIdle(work, d, chat) }
	b.queue = d
	b.sweepInbox(ctx, d)
	life, endLife := context.WithCancel(work)
	present := make(chan struct{})
	var lead func(context.Context)
	if b.cfg.WebhookURL == "" {
		lead = func(ctx context.Context) { b.poll(ctx, d) }
	}
	go func() { b.stayPresent(ctx, life, d, lead); close(present) }()
	defer func() { endLife(); <-present }()
	swept, rescanned, retained := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { b.sweep(ctx); close(swept) }()
	go func() { b.rescan(ctx, d); close(rescanned) }()
	go func() { b.retain(ctx); close(retained) }()
	if b.cfg.WebhookURL != "" {
		b.hook.set(true)
		b.takePosts(ctx)
		b.hook.set(false)
	} else {
		<-ctx.Done() // the leader among the replicas polls (stayPresent)
	}
	<-swept
	<-rescanned
	<-retained
	d.close()
	b.drain(d, stopWork)
	return nil
}

// drain waits for running updates for the grace period, then cancels them;
// they stay unfinished in the inbox and resume at the next start.
func (b *Bot) drain(d *dispatcher, stopWork context.CancelFunc) {
	done := make(chan struct{})
	go func() { d.wait(); close(done) }()
	fired, stop := b.cfg.Clock.Timer(b.cfg.ShutdownGrace)
	defer stop()
	select {
	case <-done:
		return
	case <-fired:
		b.log.Warn("shutdown: cancelling turns still running; they resume at the next start")
		stopWork()
		<-done
	}
}

// introduce learns who the bot is and, polling, removes any webhook.
func (b *Bot) introduce(ctx context.Context) error {
	var err error
	for n := 1; ; n++ {
		var me ryo.User
		me, err = b.getMe(ctx)
		if err == nil {
			b.me = me
			break
		}
		if errors.Is(err, ErrUnauthorized) || ctx.Err() != nil {
			return err
		}
		b.log.Warn("cannot reach Telegram; retrying", "err", err)
		if !ryo.Sleep(ctx, b.cfg.Clock, ryo.Backoff(n)) {
			return fmt.Errorf("start: %w", err)
		}
	}
	if b.cfg.WebhookURL == "" {
		if err := b.tg.DeleteWebhook(ctx); err != nil {
			b.log.Warn("could not remove a webhook; getUpdates may be refused", "err", err)
		}
	}
	return nil
}

// setMenu sets up the bot's command menu in each of its languages. It is
// called once this replica shares the bot-wide budget: the calls count
// against it, and a replica started beside others that made them before it
// knew of them sent them beside their burst of answers.
func (b *Bot) setMenu(ctx context.Context) {
	for _, l := range lang.Languages() {
		code := l.Tag // the menu of people whose Telegram speaks l
		if code == lang.English {
			code = "" // everyone else's
		}
		if err := b.tg.SetCommands(ctx, code, b.menu(lang.For(l.Tag))); err != nil {
			b.log.Warn("could not set the command menu", "language", l.Tag, "err", err)
		}
	}
}

func (b *Bot) getMe(ctx context.Context) (ryo.User, error) {
	me, err := b.tg.Me(ctx)
	if err != nil {
		if delivery.IsUnauthorized(err) {
			return ryo.User{}, ErrUnauthorized
		}
		return ryo.User{}, err
	}
	b.log.Info("connected to Telegram", "bot", "@"+me.Username, "bot_id", me.ID)
	if !me.CanReadAllGroupMessages {
		b.log.Warn("group privacy mode is on: in groups Telegram shows the bot only commands and replies to its messages, " +
			"not @mentions. To be answered when mentioned, turn privacy off in @BotFather (/setprivacy → Disable), " +
			"then remove the bot from each group and add it again")
	}
	return userOf(me), nil
}

// poll fetches updates until ctx ends, and dispatches each batch once it
// is stored, before the next fetch confirms it to Telegram.
func (b *Bot) poll(ctx context.Context, d *dispatcher) {
	b.poller.Run(ctx, func(ctx context.Context, got intake.Batch) error {
		stored, err := b.store(ctx, got)
		b.offerStored(ctx, d, stored)
		return err
	})
}

// store puts a batch in the inbox and returns the updates it took. An
// update the inbox refuses, or whose id cannot be read, is kept in the dead
// letter instead, logged once, and its sender told; the others go on. An
// error means that Telegram keeps the batch: nothing was confirmed.
func (b *Bot) store(ctx context.Context, got intake.Batch) ([]memory.InboxUpdate, error) {
	var refused []memory.Refused
	for _, raw := range got.Unreadable {
		r, err := b.db.BuryUnreadable(ctx, raw, "no readable update_id")
		if err != nil {
			return nil, fmt.Errorf("keep an update without a readable id (Telegram keeps it until it is kept): %w", err)
		}
		refused = append(refused, r)
	}
	if len(got.Updates) > 0 {
		r, err := b.db.StoreUpdates(ctx, got.Updates)
		if err != nil {
			return nil, fmt.Errorf("store updates (Telegram keeps them until they are stored): %w", err)
		}
		refused = append(refused, r...)
	}
	dead := map[int64]bool{}
	for _, r := range refused {
		dead[r.Update.ID] = true
		if !r.First { // Telegram sent it again: it was logged and its sender told
			continue
		}
		b.log.Error("the inbox refused an update; it is kept in the dead letter for an admin to retry (/deadletter)",
			"update_id", r.Update.ID, "chat_id", r.Update.ChatID, "kind", r.Update.Kind, "reason", r.Reason)
		b.tellRefused(ctx, r.Update)
	}
	var stored []memory.InboxUpdate
	for _, u := range got.Updates {
		if !dead[u.ID] {
			stored = append(stored, u)
		}
	}
	return stored, nil
}

// dispatch queues an update: after the earlier ones of its chat, or on
// its own when it is a button press.
func (b *Bot) dispatch(d *dispatcher, u memory.InboxUpdate) {
	if u.Kind == "callback_query" || u.Kind == "edited_message" || isStopCommand(u.Kind, u.Raw) { // a stop or an edit must not wait behind the turn it changes
		d.enqueuePress(u.ChatID, u.ID)
		return
	}
	d.enqueue(u.ChatID, u.ID)
}

// retry runs fn until it succeeds, fails for a reason other than the
// database being away, or ctx ends.
func (b *Bot) retry(ctx context.Context, what string, fn func() error) error {
	for n := 1; ; n++ {
		err := fn()
		if err == nil || !ryo.IsUnavailable(err, ryo.Database) {
			return err
		}
		wait := ryo.Backoff(n)
		b.log.WarnContext(ctx, "database unavailable; will retry", "op", what, "retry_in", wait, "err", err)
		if !ryo.Sleep(ctx, b.cfg.Clock, wait) {
			return err
		}
	}
}

func (b *Bot) isAdmin(u ryo.User) bool {
	return u.Role == ryo.RoleAdmin || slices.Contains(b.cfg.AdminIDs, u.ID)
}

// Whoami asks Telegram who the bot with cfg's token is, and whether group
// privacy mode hides group messages from it.
func Whoami(ctx context.Context, cfg Config) (me ryo.User, privacy bool, err error) {
	t, err := delivery.New(delivery.Options{Token: cfg.Token, APIURL: cfg.APIURL, CallTimeout: cfg.CallTimeout}, slog.New(slog.DiscardHandler))
	if err != nil {
		return ryo.User{}, false, err
	}
	engineCtx, stop := context.WithCancel(ctx)
	defer stop()
	go t.Run(engineCtx)
	u, err := t.Me(ctx)
	if err != nil {
		if delivery.IsUnauthorized(err) {
			return ryo.User{}, false, ErrUnauthorized
		}
		return ryo.User{}, false, err
	}
	return userOf(u), !u.CanReadAllGroupMessages, nil
}
