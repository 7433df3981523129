package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/ryo-bot/ryo"
	"github.com/ryo-bot/ryo/lang"
)

// Access modes (RYO_ACCESS).
const (
	AccessOpen      = "open"      // everyone but banned people
	AccessAllowlist = "allowlist" // admins and the people they let in
)

// Refusals, said once (and again after a day at most).
const (
	refusedBanned    = "Sorry — you can't use this bot."
	refusedAllowlist = "Sorry — this bot only talks to people its admin has let in. If you know the admin, send them your Telegram id: %d."
	// refusedAllowlistGroup is refusedAllowlist to a person in a group,
	// where their id is theirs to give, not the bot's to announce.
	refusedAllowlistGroup = "Sorry — this bot only talks to people its admin has let in. An admin can let you in by answering one of your messages with /allow."
)

// mayTalk reports whether u may use the bot: admins always, banned people
// never, and with an allowlist only the people let in.
func (b *Bot) mayTalk(u ryo.User) bool {
	switch {
	case b.isAdmin(u):
		return true
	case u.Role == ryo.RoleBanned:
		return false
	case b.cfg.Access == AccessAllowlist:
		return u.Allowed
	}
	return true
}

// speaksFor reports whether person u may act for whom, in chat: whom is u,
// or a chat u writes as. Someone who writes as a chat — an anonymous admin
// of a group, a person posting as their channel — is known by that chat's
// id, but their presses come from their own account: what the chat asked
// for, any administrator of that chat may decide, as any of them could have
// asked for it under the same name. Telegram shows the bot a channel's
// administrators only when the bot is in the channel, so what a channel
// asked for in a group the administrators of the group may decide too.
func (b *Bot) speaksFor(ctx context.Context, u ryo.User, whom, chat int64) (bool, error) {
	if u.ID == whom {
		return true, nil
	}
	if whom >= 0 {
		return false, nil
	}
	ok, err := b.administers(ctx, whom, u)
	if ok || err != nil || whom == chat || chat >= 0 {
		return ok, err
	}
	return b.administers(ctx, chat, u)
}

// administers reports whether u administers chat, as Telegram says.
func (b *Bot) administers(ctx context.Context, chat int64, u ryo.User) (bool, error) {
	ok, err := b.tg.Administers(ctx, chat, u.ID)
	if err != nil {
		return false, fmt.Errorf("ask Telegram who administers chat %d: %w", chat, err)
	}
	return ok, nil
}

// deciders names who may decide what whom asked for in chat, for a prompt
// or a refusal: the person by name, or the administrators of the chat that
// asked (and of the group, when that was another chat). A name is cut to
// maxDeciderName, so the sentence around it fits an alert in every
// language.
// maxDeciderName is how much of a name deciders shows: Telegram's names
// run to 164 characters, and an alert holds 200.
const maxDeciderName = 64

func deciders(p lang.Printer, whom, chat int64, name string) string {
	name = clip(name, maxDeciderName)
	switch {
	case whom > 0 && name != "":
		return name
	case whom > 0:
		return p.Sprintf("the person who asked")
	case whom == chat:
		return p.Sprintf("an administrator of this group")
	case name != "":
		return p.Sprintf("an administrator of %s or of this group", name)
	}
	return p.Sprintf("an administrator of this group")
}

// admit decides whether the sender of m, a message meant for the bot, may
// use it, as the database says now (admins change it at run time). Someone
// who may not gets one polite refusal instead of an answer.
func (b *Bot) admit(ctx context.Context, j *job, m *models.Message) (bool, error) {
	u, err := b.db.SaveUser(ctx, seenIn(m, m.From), false)
	if err != nil {
		return false, err
	}
	return b.letIn(ctx, j, m, u)
}

// letIn is admit once the sender of m is stored as u, with their role.
func (b *Bot) letIn(ctx context.Context, j *job, m *models.Message, u ryo.User) (bool, error) {
	id := j.id
	if b.mayTalk(u) {
		return true, nil
	}
	b.log.InfoContext(ctx, "refused someone who may not use the bot", "update_id", id, "user_id", u.ID, "role", u.Role, "access", b.cfg.Access)
	tell, err := b.db.Refuse(ctx, u.ID)
	if err != nil || !tell {
		return false, err
	}
	p := b.words(ctx, m.Chat.ID, u)
	text := p.Sprintf(refusedBanned)
	switch {
	case u.Role == ryo.RoleBanned:
	case m.Chat.Type == models.ChatTypePrivate || u.ID < 0: // a chat writing as itself: its id is the group's to know
		text = p.Sprintf(refusedAllowlist, u.ID)
	default:
		text = p.Sprintf(refusedAllowlistGroup)
	}
	return false, b.replyOnce(ctx, j.w, id, placeOf(m), m.ID, text)
}

// target finds the person an admin command names: @username (the @ may be
// left out, any case), a numeric Telegram id, or the author of the message
// the command replies to. A numeric id the bot has not seen is still a
// person, known by id. Someone who writes as a chat (an anonymous admin, or
// as their channel) is known by that chat's id, which is negative. A
// username is whoever was seen with it last; when that is several people,
// nobody is picked: the problem lists them, to be named by id. The bot
// itself, and a bot whose message the command replies to, is no one.
func (b *Bot) target(ctx context.Context, c call) (ryo.User, string, error) {
	arg := strings.TrimSpace(c.args)
	if r := repliedTo(c.msg); arg == "" && r != nil {
		switch author := senderOf(r); {
		case author == nil:
		case author.ID == b.me.ID:
			return ryo.User{}, c.p.Sprintf(thatIsMe), nil
		case author.IsBot:
			return ryo.User{}, c.p.Sprintf("That is a bot, not a person. Name a person: @username, their Telegram id, or send the command in reply to their message."), nil
		default:
			u, err := b.db.SaveUser(ctx, seenIn(r, author), false)
			return u, "", err
		}
	}
	word, _ := cutWord(arg)
	if b.namesMe(word) {
		return ryo.User{}, c.p.Sprintf(thatIsMe), nil
	}
	if n, err := strconv.ParseInt(word, 10, 64); err == nil && n != 0 {
		u, found, err := b.db.FindUser(ctx, n)
		if !found && err == nil {
			u = ryo.User{ID: n, Role: ryo.RoleUser}
		}
		return u, "", err
	}
	username := strings.TrimPrefix(word, "@")
	if !isUsername(username) {
		return ryo.User{}, c.p.Sprintf("Name someone: @username, their Telegram id, or send the command in reply to their message."), nil
	}
	named, err := b.db.UsersNamed(ctx, username)
	switch {
	case err != nil:
		return ryo.User{}, "", err
	case len(named) == 0:
		return ryo.User{}, c.p.Sprintf("I don't know @%s yet: they must write to me once, or use their Telegram id.", username), nil
	case len(named) > 1:
		return ryo.User{}, b.ambiguous(c.p, username, named), nil
	}
	return named[0], "", nil
}

// thatIsMe refuses a command that names the bot itself.
const thatIsMe = "That is me, the bot. Name a person: @username, their Telegram id, or send the command in reply to their message."

// namesMe reports whether word is the bot's own id or username, with or
// without its @.
func (b *Bot) namesMe(word string) bool {
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return n == b.me.ID
	}
	name := strings.TrimPrefix(word, "@")
	return b.me.Username != "" && strings.EqualFold(name, b.me.Username)
}

// isUsername reports whether s has the shape of a Telegram username:
// letters, digits and underscores, starting with a letter.
func isUsername(s string) bool {
	if s == "" || len(s) > 32 || !isLetter(rune(s[0])) {
		return false
	}
	for _, r := range s {
		if !isLetter(r) && (r < '0' || r > '9') && r != '_' {
			return false
		}
	}
	return true
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// ambiguous refuses a username that several people claim, naming each by
// id, name and when they were last seen with it.
func (b *Bot) ambiguous(p lang.Printer, username string, people []ryo.User) string {
	described := make([]string, len(people))
	for i, u := range people {
		var about []string
		if name := strings.TrimSpace(u.FirstName + " " + u.LastName); name != "" {
			about = append(about, name)
		}
		if !u.Seen.IsZero() {
			about = append(about, p.Sprintf("seen %s", u.Seen.In(b.cfg.Location).Format("2006-01-02")))
		}
		described[i] = strconv.FormatInt(u.ID, 10)
		if len(about) > 0 {
			described[i] += " (" + strings.Join(about, ", ") + ")"
		}
	}
	return p.Sprintf("@%s could match several people: %s. Use the id.", username, strings.Join(described, ", "))
}

// setAccess is the body of /allow, /ban, /promote and /demote.
func (b *Bot) setAccess(ctx context.Context, c call, change func(u ryo.User) (ryo.Role, bool, string)) error {
	u, problem, err := b.target(ctx, c)
	if err != nil {
		return err
	}
	if problem != "" {
		return b.reply(ctx, c, problem)
	}
	role, allowed, done := change(u)
	if u.ID == c.user.ID && role != ryo.RoleAdmin {
		return b.reply(ctx, c, c.p.Sprintf("You can't change your own access."))
	}
	if role != ryo.RoleAdmin && slices.Contains(b.cfg.AdminIDs, u.ID) {
		return b.reply(ctx, c, c.p.Sprintf("%s is an admin by RYO_ADMIN_IDS; change it there.", displayName(c.p, u)))
	}
	if _, err := b.db.SetAccess(ctx, u.ID, role, allowed, c.user.ID); err != nil {
		return err
	}
	b.log.InfoContext(ctx, "access changed", "by", c.user.ID, "user_id", u.ID, "role", role, "allowed", allowed)
	return b.reply(ctx, c, done)
}

// displayName names a person in replies; one known only by id says so.
func displayName(p lang.Printer, u ryo.User) string {
	if u.FirstName == "" && u.LastName == "" && u.Username == "" {
		return p.Sprintf("user %d", u.ID)
	}
	return u.Name()
}
