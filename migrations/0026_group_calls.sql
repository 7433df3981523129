-- Telegram's calls in groups still counting against the group's twenty a
-- minute: each until the minute after its answer ends. A ryo that starts
-- again, or another replica that takes a group over, reads them before it
-- calls in that group, so that together they never pass the limit.
-- Rows past their minute are deleted as they go.
create table group_calls (
    chat_id bigint not null,
    until   timestamptz not null,
    process text not null -- which ryo process made the call
);
create index group_calls_chat on group_calls (chat_id, until);
