-- Long-term memories. A memory belongs to one person (scope 'user': theirs
-- alone, recalled only in their private chat with the bot) or to one group
-- (scope 'group': recalled only in that group). search is the content and
-- tags as words of any language ('simple': no stemming, no stop words),
-- kept by the statements that write the row.
create table memories (
    id                bigserial primary key,
    scope             text not null check (scope in ('user', 'group')),
    owner_id          bigint not null,                 -- the person it belongs to, or who added it to the group
    chat_id           bigint not null,                 -- the group; for a person's own, the chat it was learned in
    content           text not null check (length(content) between 1 and 2000),
    tags              text[] not null default '{}',
    source_message_id bigint references messages (id) on delete set null,
    added_by          bigint not null,                 -- who had it stored: the person, or an admin
    search            tsvector not null,
    embedding         real[],                          -- from the embedding model, when one is configured
    created_at        timestamptz not null,
    updated_at        timestamptz not null,
    last_used_at      timestamptz,
    expires_at        timestamptz
);
create index memories_search_idx on memories using gin (search);
create index memories_user_idx on memories (owner_id, id desc) where scope = 'user';
create index memories_group_idx on memories (chat_id, id desc) where scope = 'group';
create index memories_tags_idx on memories using gin (tags);

-- Roles given at run time by admins, and the access mode's allowlist, live
-- on users (role: admin | user | banned). allowed marks a person an admin
-- let in when access is by allowlist.
alter table users add column allowed boolean not null default false;
alter table users add column role_by bigint;
alter table users add column role_at timestamptz;
alter table users add column refused_at timestamptz;        -- when a person who may not use the bot was last told so

-- What an action will do, in words, when its tool can say (forget names the
-- memory it removes), shown in its prompt above the arguments.
alter table actions add column summary text not null default '';

-- Who asked for an action: the model in a conversation (which goes on
-- after the yes), a person's own command (/forget), or an admin's command
-- (/memory forget), which only show their outcome.
alter table actions add column origin text not null default 'model' check (origin in ('model', 'command', 'admin'));

-- Paged lists sent with ◀ ▶ buttons (/memory, /tags, …): the buttons carry
-- the view's opaque id and a page number; the view says what is listed and
-- for whom.
create table views (
    id         text primary key,
    kind       text not null,
    viewer_id  bigint not null,              -- only they may turn its pages
    chat_id    bigint not null,
    subject    jsonb not null default '{}',
    created_at timestamptz not null
);
