-- What admins set for one chat from the chat itself. Each setting is a
-- column of its own, null when the chat follows the bot-wide default;
-- settings that come later (a persona, the temperature, the language of
-- the bot's own messages, the group answer mode) are columns added here.
create table chat_settings (
    chat_id bigint primary key,
    model   text,        -- the model that answers here; null: the default
    set_by  bigint,      -- who last changed a setting of the chat
    set_at  timestamptz not null
);

-- Bot-wide settings set from a chat, in one row. A null column falls back
-- to the environment: the default model to RYO_MODEL.
create table bot_settings (
    id     boolean primary key default true check (id),
    model  text,         -- the default model; null: RYO_MODEL
    set_by bigint,
    set_at timestamptz not null
);
