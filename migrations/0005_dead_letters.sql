-- Updates ryo could not handle, kept so that nothing is lost and an admin
-- can retry them after a fix: those the inbox could not store (stage
-- 'store': raw holds the bytes exactly as Telegram sent them, which
-- PostgreSQL may refuse as jsonb) and those whose handling failed for good
-- (stage 'process': a copy of the inbox row, which stays marked failed).
-- A retried letter keeps its row, with retried_at set; it is buried again
-- (retried_at cleared) if it fails again.
create table dead_letters (
    update_id  bigint primary key,
    chat_id    bigint,
    kind       text not null,
    raw        bytea not null,
    stage      text not null check (stage in ('store', 'process')),
    error      text not null,
    attempts   integer not null default 0,           -- starts of its handling
    died_at    timestamptz not null,
    retried_at timestamptz,
    retries    integer not null default 0
);
create index dead_letters_waiting_idx on dead_letters (died_at desc) where retried_at is null;
