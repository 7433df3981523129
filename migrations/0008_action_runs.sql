-- A confirmed action is marked running, in its own transaction, before its
-- tool runs; the tool's result and the executed state are written after.
-- An action found running at a start was cut short with no outcome
-- recorded: it is never run again blindly. Its tool says whether it
-- happened, when it can; otherwise it is interrupted (an end state) and
-- the person asked again by a new action, retry_of naming the old one.
alter table actions drop constraint actions_state_check;
alter table actions add constraint actions_state_check
    check (state in ('pending', 'confirmed', 'running', 'executed', 'cancelled', 'expired', 'interrupted'));
alter table actions add column started_at timestamptz;
alter table actions add column retry_of text references actions (id) on delete set null;
create unique index actions_retry_idx on actions (retry_of) where retry_of is not null;
drop index actions_unsettled_idx;
create index actions_unsettled_idx on actions (decided_at)
    where not prompt_settled and state in ('executed', 'cancelled', 'expired', 'interrupted') and prompt_message_id is not null;

-- Presses refused to one person on one action are one entry of the audit
-- log, with how many there were and when the last came, so that a flood
-- of presses cannot push the real decisions out of /approvals.
alter table action_events drop constraint action_events_event_check;
alter table action_events add constraint action_events_event_check
    check (event in ('requested', 'confirmed', 'cancelled', 'expired', 'started', 'executed', 'interrupted', 'refused'));
alter table action_events add column times integer not null default 1;
alter table action_events add column last_at timestamptz;
update action_events set last_at = at;
alter table action_events alter column last_at set not null;
update action_events e set times = g.times, last_at = g.last_at
    from (select min(id) as id, count(*) as times, max(at) as last_at from action_events
          where event = 'refused' group by action_id, coalesce(actor_id, 0)) g
    where e.id = g.id;
delete from action_events e using action_events f
    where e.event = 'refused' and f.event = 'refused' and e.action_id = f.action_id
      and e.actor_id is not distinct from f.actor_id and e.id > f.id;
create unique index action_events_refused_idx on action_events (action_id, coalesce(actor_id, 0)) where event = 'refused';
drop index action_events_at_idx;
create index action_events_last_idx on action_events (last_at desc, id desc);

-- A paged list's buttons work only on the message that shows it: the view
-- names the command's update, whose turn holds the message the list was
-- sent as. Views older than that have none and are stale.
alter table views add column update_id bigint;

-- Who sent an update (a person, or the chat someone writes as), so that
-- the messages one person sends while their turn waits are found at once
-- and answered together, as one turn.
alter table updates add column sender_id bigint;
create index updates_sender_idx on updates (chat_id, sender_id, update_id) where state in ('pending', 'processing');
