-- The files a person sent with a message (photos for now), as Telegram
-- knows them: a list of {kind, file_id, file_unique_id, width, height,
-- size}. The bytes stay with Telegram; a turn fetches them again by
-- file_id. media_group is the album the message belongs to.
alter table messages
    add column media jsonb not null default '[]',
    add column media_group text;
