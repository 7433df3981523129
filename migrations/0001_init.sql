-- The people the bot has seen. Roles decide what they may do.
create table users (
    id            bigint primary key,              -- Telegram user id
    username      text not null default '',
    first_name    text not null default '',
    last_name     text not null default '',
    language_code text not null default '',
    is_bot        boolean not null default false,
    role          text not null default 'user' check (role in ('admin', 'user', 'banned')),
    started_at    timestamptz,                     -- first /start
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);
create index users_username_idx on users (lower(username)) where username <> '';

-- The chats the bot is in.
create table chats (
    id         bigint primary key,                 -- Telegram chat id
    type       text not null check (type in ('private', 'group', 'supergroup', 'channel')),
    title      text not null default '',
    username   text not null default '',
    is_forum   boolean not null default false,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

-- A conversation place: a chat (thread_id 0) or a forum topic inside it.
-- context_from is the messages.id after which the model's context starts;
-- /reset moves it forward, the stored history stays.
create table chat_topics (
    chat_id      bigint not null references chats (id) on delete cascade,
    thread_id    bigint not null default 0,
    name         text not null default '',
    context_from bigint not null default 0,
    created_at   timestamptz not null default now(),
    updated_at   timestamptz not null default now(),
    primary key (chat_id, thread_id)
);

-- The update inbox. An update is stored here before Telegram is told it
-- arrived, and is processed from here: pending -> processing -> done | failed.
create table updates (
    update_id   bigint primary key,
    chat_id     bigint,                            -- null when the update names no chat
    kind        text not null,                     -- message, edited_message, callback_query, ...
    raw         jsonb not null,
    state       text not null default 'pending'
                check (state in ('pending', 'processing', 'done', 'failed')),
    attempts    integer not null default 0,
    error       text not null default '',
    received_at timestamptz not null default now(),
    started_at  timestamptz,
    finished_at timestamptz
);
create index updates_unfinished_idx on updates (update_id) where state in ('pending', 'processing');
create index updates_chat_idx on updates (chat_id, update_id);

-- What the bot has done for one update, written down as it happens, so
-- that an update run again after a crash or an outage does not do it twice:
-- the message the bot posted (a turn's status message, or a command's reply),
-- the model's answer, and the further messages a long answer was split into.
create table turns (
    update_id         bigint primary key references updates (update_id) on delete cascade,
    chat_id           bigint not null,
    thread_id         bigint not null default 0,
    status_message_id bigint,
    answer            text,
    answer_metadata   jsonb,
    part_message_ids  bigint[] not null default '{}',
    created_at        timestamptz not null default now(),
    updated_at        timestamptz not null default now()
);

-- Every message of every conversation. role is what the model sees
-- (tool results are synthetic user messages); kind is what the row is.
create table messages (
    id                  bigserial primary key,
    chat_id             bigint not null references chats (id) on delete cascade,
    thread_id           bigint not null default 0,
    sender_id           bigint references users (id),
    role                text not null check (role in ('user', 'assistant', 'system')),
    kind                text not null check (kind in ('user', 'assistant', 'tool_result', 'system')),
    text                text not null,
    telegram_message_id bigint,
    reply_to_message_id bigint,
    update_id           bigint,
    metadata            jsonb not null default '{}',
    created_at          timestamptz not null default now()
);
create index messages_place_idx on messages (chat_id, thread_id, id desc);
create unique index messages_telegram_idx on messages (chat_id, telegram_message_id)
    where telegram_message_id is not null;
create index messages_update_idx on messages (update_id) where update_id is not null;
