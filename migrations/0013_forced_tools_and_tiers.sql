-- A tool a person chose for their next message in one chat (and topic):
-- the turn that takes it marks it used, and storing that turn's answer
-- deletes it. It lapses at expires_at.
create table forced_tools (
    user_id    bigint not null references users (id) on delete cascade,
    chat_id    bigint not null,
    thread_id  bigint not null default 0,
    tool       text not null,
    set_at     timestamptz not null,
    expires_at timestamptz not null,
    used_by    bigint,              -- the update of the turn that took it
    primary key (user_id, chat_id, thread_id)
);
create index forced_tools_used_by_idx on forced_tools (used_by) where used_by is not null;

-- Which tools a person may use: a tier named in RYO_TIERS; null is the
-- default tier.
alter table users add column tier text;
alter table users add column tier_by bigint;
alter table users add column tier_at timestamptz;
