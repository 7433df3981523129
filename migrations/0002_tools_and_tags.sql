-- Tags of messages: the envelope's own, and the action and tool tags
-- (tool:calculate, ...). Indexed for counting and for finding the messages
-- that carry a tag.
create table message_tags (
    message_id bigint not null references messages (id) on delete cascade,
    tag        text not null check (tag <> '' and length(tag) <= 64),
    created_at timestamptz not null default now(),
    primary key (message_id, tag)
);
create index message_tags_tag_idx on message_tags (tag, message_id desc);

-- A tool call runs once per idempotency key: its result message is stored
-- under the key, and a second store of the same key finds the first.
create unique index messages_tool_key_idx on messages ((metadata ->> 'idempotency_key'))
    where kind = 'tool_result';
