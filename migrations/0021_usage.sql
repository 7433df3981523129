-- What each answered turn cost, for /stats and quotas: one row per turn,
-- written with its answer. The turns table cannot hold it: its rows go
-- with their updates after RYO_RETAIN_UPDATES (7 days), and /stats looks
-- 30 days back. A row holds no text — who asked where, when, which model,
-- how many tokens, how long the model took and which tools ran — and goes
-- after RYO_RETAIN_USAGE. /forgetme deletes a person's private chat's rows
-- and anonymises their rows in groups (user_id becomes null): a group's
-- totals stay right, and nothing left names them.
create table usage (
    update_id     bigint primary key,       -- the turn's update
    chat_id       bigint not null,
    user_id       bigint,                   -- who the turn was for; null once they were forgotten
    model         text not null default '',
    prompt_tokens bigint not null default 0,
    reply_tokens  bigint not null default 0,
    model_ms      bigint not null default 0, -- the model's own time, as it reported it
    tools         text[] not null default '{}', -- the tools that ran, in order, a name once per call
    at            timestamptz not null      -- when the answer was saved
);
create index usage_at_idx on usage (at);
create index usage_chat_at_idx on usage (chat_id, at);
create index usage_user_at_idx on usage (user_id, at) where user_id is not null;

-- A quota an admin gave one person (/quota): it replaces their tier's.
-- limits is as /quota shows it ("50/day, 10/hour"; "none" for no limit).
-- No foreign key: like a tier, an admin's decision outlives /forgetme.
create table person_quotas (
    user_id bigint primary key,
    limits  text not null,
    set_by  bigint not null,
    set_at  timestamptz not null
);
