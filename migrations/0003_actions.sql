-- Actions that wait for a person's yes: a command of the model that changes
-- something, held until the person who asked confirms it. The row is bound
-- to the exact arguments (and their hash); the buttons carry only the id.
-- state moves pending -> confirmed -> executed, or pending -> cancelled |
-- expired, each step by one conditional update, so that an action is
-- decided once and runs once whoever presses and however often.
create table actions (
    id                text primary key,                -- opaque; the buttons' callback data carries it
    chat_id           bigint not null,
    thread_id         bigint not null default 0,
    requester_id      bigint not null,                 -- who asked; only they decide (and admins, when allowed)
    update_id         bigint not null,                 -- the turn that asked for it
    call_id           text not null,
    tool              text not null,
    arguments         jsonb not null,
    arguments_hash    text not null,                   -- sha256 of the canonical arguments
    idempotency_key   text not null unique,            -- the tool call's: the action is asked for once per turn
    reason            text not null check (reason in ('destructive', 'policy', 'model')),
    state             text not null default 'pending'
                      check (state in ('pending', 'confirmed', 'executed', 'cancelled', 'expired')),
    prompt_message_id bigint,                          -- the message with the buttons
    file_message_id   bigint,                          -- the arguments in full, when too long for the prompt
    prompt_settled    boolean not null default false,  -- the prompt shows the outcome and has no buttons
    result_status     text not null default '',        -- the tool's result status once it ran
    decided_by        bigint,
    decided_update    bigint,                          -- the button press that decided it
    created_at        timestamptz not null,
    expires_at        timestamptz not null,
    decided_at        timestamptz,
    executed_at       timestamptz
);
create index actions_expiry_idx on actions (expires_at) where state = 'pending';
create index actions_unsettled_idx on actions (decided_at)
    where not prompt_settled and state in ('executed', 'cancelled', 'expired') and prompt_message_id is not null;
create index actions_update_idx on actions (update_id);

-- The audit log of actions: every request and decision, with who and when.
-- actor_id is null for what the bot did on its own (expiry).
create table action_events (
    id        bigserial primary key,
    action_id text not null references actions (id) on delete cascade,
    event     text not null check (event in ('requested', 'confirmed', 'cancelled', 'expired', 'executed', 'refused')),
    actor_id  bigint,
    detail    text not null default '',
    at        timestamptz not null
);
create index action_events_at_idx on action_events (at desc, id desc);
