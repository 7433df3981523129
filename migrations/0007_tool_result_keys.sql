-- A tool result is found by its call's idempotency key, which is now a
-- column written with the result, no longer read out of its metadata. A
-- call still runs once per key: the key stays unique among tool results.
alter table messages add column idempotency_key text;
update messages set idempotency_key = metadata ->> 'idempotency_key'
    where kind = 'tool_result' and metadata ? 'idempotency_key';
drop index messages_tool_key_idx;
create unique index messages_tool_key_idx on messages (idempotency_key) where kind = 'tool_result';
