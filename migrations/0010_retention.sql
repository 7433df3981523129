-- What ryo keeps only for a while is swept every hour, in small batches,
-- each found through an index of its own: inbox updates once they are
-- finished, paged lists' views, actions once they ended (with their audit
-- log), memories once they expired, and group messages kept as context only.

-- A group message not meant for the bot is kept as context only: it is
-- never answered, and goes after RYO_RETAIN_CONTEXT. Messages stored
-- before this migration are not marked: which of them were answered
-- together with a later message of their sender cannot be told now, so
-- they are kept, as the conversations' turns are.
alter table messages add column context_only boolean not null default false;
create index messages_context_idx on messages (created_at) where context_only;

create index updates_finished_idx on updates (finished_at) where state in ('done', 'failed');
create index views_created_idx on views (created_at);
-- When an action ended: run, interrupted, cancelled or expired.
create index actions_ended_idx on actions ((coalesce(executed_at, decided_at, created_at)))
    where state in ('executed', 'cancelled', 'expired', 'interrupted');
create index memories_expiry_idx on memories (expires_at) where expires_at is not null;
create index dead_letters_retried_idx on dead_letters (retried_at) where retried_at is not null;
