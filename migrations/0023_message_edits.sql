-- A person's message that they edited keeps the newest edit's text. An
-- edit is newer than another when its edit_date is later, or, within the
-- same second, its update came later; an older edit arriving after a
-- newer one is dropped. Both are null while the message is as first sent.
alter table messages
    add column edit_date      bigint,
    add column edit_update_id bigint;
