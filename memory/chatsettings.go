package memory

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// ModelChoice is which model admins chose for a chat, and as the default
// of every chat; "" where they chose none.
type ModelChoice struct {
	Chat    string
	Default string
}

// ModelChoice is the model chosen for chat, and the default.
func (db *DB) ModelChoice(ctx context.Context, chat int64) (ModelChoice, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var chosen, def *string
	err := db.pool.QueryRow(ctx, `select (select model from chat_settings where chat_id = $1::bigint),
		(select model from bot_settings where id)`, chat).Scan(&chosen, &def)
	if err != nil {
		return ModelChoice{}, db.fail("load model choice", err)
	}
	return ModelChoice{Chat: orEmpty(chosen), Default: orEmpty(def)}, nil
}

// SetChatModel makes model the one that answers in chat; "" makes the
// chat follow the default again. by is who chose.
func (db *DB) SetChatModel(ctx context.Context, chat, by int64, model string) error {
	return db.tx(ctx, "set chat model", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into chat_settings (chat_id, model, set_by, set_at)
			values ($1::bigint, nullif($2::text, ''), $3::bigint, $4::timestamptz)
			on conflict (chat_id) do update set model = excluded.model, set_by = excluded.set_by, set_at = excluded.set_at`,
			chat, model, by, db.Now())
		return err
	})
}

// SetDefaultModel makes model the default of every chat that chose none;
// "" gives the default back to the environment (RYO_MODEL). by is who
// chose.
func (db *DB) SetDefaultModel(ctx context.Context, by int64, model string) error {
	return db.tx(ctx, "set default model", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into bot_settings (id, model, set_by, set_at)
			values (true, nullif($1::text, ''), $2::bigint, $3::timestamptz)
			on conflict (id) do update set model = excluded.model, set_by = excluded.set_by, set_at = excluded.set_at`,
			model, by, db.Now())
		return err
	})
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ChatSettings is what admins set for one chat; the zero value of a field
// (nil for Temperature) means the chat follows the default.
type ChatSettings struct {
	Model       string
	Persona     string
	Temperature *float64
	Language    string // a tag of lang.Languages: "en", "ru", …
	AnswerMode  string // "mention", "every" or "off"
}

// ChatSettings is what was set for chat.
func (db *DB) ChatSettings(ctx context.Context, chat int64) (ChatSettings, error) {
	ctx, cancel := db.deadline(ctx)
	defer cancel()
	var model, persona, language, mode *string
	var s ChatSettings
	err := db.pool.QueryRow(ctx, `select model, persona, round(temperature::numeric, 2)::float8, language, answer_mode
		from chat_settings where chat_id = $1::bigint`, chat).Scan(&model, &persona, &s.Temperature, &language, &mode)
	if errors.Is(err, pgx.ErrNoRows) {
		return ChatSettings{}, nil
	}
	if err != nil {
		return ChatSettings{}, db.fail("load chat settings", err)
	}
	s.Model, s.Persona, s.Language, s.AnswerMode = orEmpty(model), orEmpty(persona), orEmpty(language), orEmpty(mode)
	return s, nil
}

// TurnSettings is what a turn in a chat follows: the chat's settings, and
// the model admins chose as every chat's default ("" when none).
type TurnSettings struct {
	ChatSettings
	DefaultModel string
}

// ModelChoice is the model chosen for the chat, and the default.
func (s TurnSettings) ModelChoice() ModelChoice {
	return ModelChoice{Chat: s.Model, Default: s.DefaultModel}
}

// TurnSettings is what was set for chat, and for every chat: ChatSettings
// and ModelChoice in one round trip.
func (db *DB) TurnSettings(ctx context.Context, chat int64) (TurnSettings, error) {
	var s TurnSettings
	err := db.batch(ctx, "load turn settings", func(b *pgx.Batch) { queueTurnSettings(b, chat, &s) })
	return s, err
}

// queueTurnSettings queues the read of TurnSettings, and has what it finds
// land in *s.
func queueTurnSettings(b *pgx.Batch, chat int64, s *TurnSettings) {
	*s = TurnSettings{}
	b.Queue(`select s.model, s.persona, round(s.temperature::numeric, 2)::float8, s.language, s.answer_mode,
			(select model from bot_settings where id)
		from (select $1::bigint as id) c left join chat_settings s on s.chat_id = c.id`, chat).QueryRow(func(row pgx.Row) error {
		var model, persona, language, mode, def *string
		err := row.Scan(&model, &persona, &s.Temperature, &language, &mode, &def)
		s.Model, s.Persona, s.Language, s.AnswerMode = orEmpty(model), orEmpty(persona), orEmpty(language), orEmpty(mode)
		s.DefaultModel = orEmpty(def)
		return err
	})
}

// SetChatPersona makes persona what the model is told of its character in
// chat; "" takes it away. by is who set it.
func (db *DB) SetChatPersona(ctx context.Context, chat, by int64, persona string) error {
	return db.setChat(ctx, "set chat persona", `persona = nullif($4::text, '')`, chat, by, persona)
}

// SetChatTemperature makes t the model's temperature in chat; nil gives
// the chat the model's own again. It must be within 0 and 2.
func (db *DB) SetChatTemperature(ctx context.Context, chat, by int64, t *float64) error {
	return db.setChat(ctx, "set chat temperature", `temperature = $4::float8`, chat, by, t)
}

// SetChatLanguage makes tag the language of the bot's own messages in
// chat; "" makes each person's own language speak again.
func (db *DB) SetChatLanguage(ctx context.Context, chat, by int64, tag string) error {
	return db.setChat(ctx, "set chat language", `language = nullif($4::text, '')`, chat, by, tag)
}

// SetChatAnswerMode makes mode ("mention", "every" or "off") what the bot
// answers in chat, a group; "" is the default (mention).
func (db *DB) SetChatAnswerMode(ctx context.Context, chat, by int64, mode string) error {
	return db.setChat(ctx, "set chat answer mode", `answer_mode = nullif($4::text, '')`, chat, by, mode)
}

// CarryChatSettings gives chat to, which chat from became (a group that
// Telegram turned into a supergroup), from's settings — unless to has its
// own already.
func (db *DB) CarryChatSettings(ctx context.Context, from, to int64) error {
	return db.tx(ctx, "carry chat settings", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into chat_settings (chat_id, model, persona, temperature, language, answer_mode, set_by, set_at)
			select $2::bigint, model, persona, temperature, language, answer_mode, set_by, set_at
			from chat_settings where chat_id = $1::bigint
			on conflict (chat_id) do nothing`, from, to)
		return err
	})
}

// setChat sets one of chat's settings, as assign (a constant of the
// setters above, never a person's words) says, to value ($4).
func (db *DB) setChat(ctx context.Context, what, assign string, chat, by int64, value any) error {
	return db.tx(ctx, what, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `insert into chat_settings (chat_id, set_by, set_at) values ($1::bigint, $2::bigint, $3::timestamptz)
			on conflict (chat_id) do nothing`, chat, by, db.Now())
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `update chat_settings set `+assign+`, set_by = $2::bigint, set_at = $3::timestamptz
			where chat_id = $1::bigint`, chat, by, db.Now(), value)
		return err
	})
}
