-- Files a tool made for the person — a chart, a picture — are stored with
-- the tool's result, in the same transaction, until the turn's answer
-- delivers them (a picture as a photo): a restart between the tool's run
-- and the delivery loses nothing, and the turn delivers them once, as it
-- does the answer's parts. They go with their message, and with their
-- turn's update when the inbox is swept. Telegram's own bounds hold: a
-- photo is at most 10 MB, a caption 1,024 characters.
create table attachments (
    message_id bigint not null references messages (id) on delete cascade,
    position   integer not null check (position >= 0),
    update_id  bigint not null references updates (update_id) on delete cascade,
    name       text not null check (length(name) between 1 and 64),
    mime_type  text not null check (mime_type like '%/%'),
    caption    text not null default '' check (length(caption) <= 1024),
    data       bytea not null check (octet_length(data) between 1 and 10485760),
    created_at timestamptz not null,
    primary key (message_id, position)
);
create index attachments_update_idx on attachments (update_id);
