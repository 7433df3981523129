package telegramtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// BotCommand is one entry of the bot's command menu.
type BotCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

const maxCommands = 100

// defaultScopeKey is the scopeKey of the default scope with no language.
const defaultScopeKey = "default||0|"

// Commands returns the command list last set with setMyCommands for the
// default scope and no language, or nil.
func (s *Server) Commands() []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.commands[defaultScopeKey])
}

// CommandsIn returns the command list last set with setMyCommands for the
// default scope and language (a two-letter code), or nil.
func (s *Server) CommandsIn(language string) []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.commands["default||0|"+language])
}

func (s *Server) setMyCommands(r *request) (any, error) {
	var list []BotCommand
	if json.Unmarshal([]byte(r.str("commands")), &list) != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	if err := checkCommands(list); err != nil {
		return nil, err
	}
	key, err := scopeKey(r)
	if err != nil {
		return nil, err
	}
	s.commands[key] = list
	s.notify()
	return true, nil
}

func (s *Server) getMyCommands(r *request) (any, error) {
	key, err := scopeKey(r)
	if err != nil {
		return nil, err
	}
	return append([]BotCommand{}, s.commands[key]...), nil
}

func (s *Server) deleteMyCommands(r *request) (any, error) {
	key, err := scopeKey(r)
	if err != nil {
		return nil, err
	}
	delete(s.commands, key)
	s.notify()
	return true, nil
}

func checkCommands(list []BotCommand) error {
	if len(list) > maxCommands {
		return badRequest("BOT_COMMANDS_TOO_MUCH")
	}
	for _, c := range list {
		if !validCommand(c.Command) || !validDescription(c.Description) {
			return badRequest("BOT_COMMAND_INVALID")
		}
	}
	return nil
}

// validCommand: 1-32 characters of lowercase English letters, digits and
// underscores.
func validCommand(cmd string) bool {
	if len(cmd) < 1 || len(cmd) > 32 {
		return false
	}
	for _, c := range []byte(cmd) {
		if !(c == '_' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func validDescription(d string) bool {
	n := utf8.RuneCountInString(d)
	return n >= 1 && n <= 256
}

// scopeKey identifies a command list by scope and language_code.
func scopeKey(r *request) (string, error) {
	var scope struct {
		Type   string          `json:"type"`
		ChatID json.RawMessage `json:"chat_id"`
		UserID int64           `json:"user_id"`
	}
	if raw := r.str("scope"); raw != "" {
		if json.Unmarshal([]byte(raw), &scope) != nil || scope.Type == "" {
			return "", badRequest("can't parse BotCommandScope JSON object")
		}
	}
	if scope.Type == "" {
		scope.Type = "default"
	}
	if l := r.str("language_code"); l != "" && !validLanguage(l) {
		return "", badRequest("LANGUAGE_CODE_INVALID")
	}
	return fmt.Sprintf("%s|%s|%d|%s", scope.Type, scope.ChatID, scope.UserID, r.str("language_code")), nil
}

// validLanguage: a two-letter ISO 639-1 code, as Telegram takes.
func validLanguage(code string) bool {
	return len(code) == 2 && 'a' <= code[0] && code[0] <= 'z' && 'a' <= code[1] && code[1] <= 'z'
}
