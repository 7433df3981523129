-- A tool chosen again while a turn that took the one chosen before may
-- still run (again, after an interruption) waits beside it: a person has
-- at most one choice waiting in a place (used_by null), and the turn keeps
-- the tool it began with until its answer is stored.
alter table forced_tools drop constraint forced_tools_pkey;
create unique index forced_tools_waiting_idx on forced_tools (user_id, chat_id, thread_id) where used_by is null;
