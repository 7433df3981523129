-- What a turn did, step by step, for the inspector (🔍 under an answer
-- that used tools): each model call with its model, tokens and times, and
-- each tool call with its arguments and result as the model was shown
-- them, cut to a few KB each (with their full size), at most 40 steps.
-- A row goes with its update (RYO_RETAIN_UPDATES) and with /forgetme of
-- the person who asked; /export hands a person their own.
create table turn_traces (
    update_id     bigint primary key references updates (update_id) on delete cascade,
    chat_id       bigint not null,
    thread_id     bigint not null default 0,
    asker_id      bigint not null,          -- who the turn was for (a chat's id when asked as a chat)
    model         text not null default '',
    outcome       text not null default '', -- answered, held, stopped
    took_ms       bigint not null default 0,
    prompt_tokens bigint not null default 0,
    reply_tokens  bigint not null default 0,
    steps         jsonb not null default '[]',
    steps_left_out bigint not null default 0, -- steps past the cap, not kept
    created_at    timestamptz not null
);
create index turn_traces_asker_idx on turn_traces (asker_id);
