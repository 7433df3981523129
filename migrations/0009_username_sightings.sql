-- A username belongs to one account at a time, but moves: when someone
-- gives theirs up, someone else may take it. username_seen_at is when
-- Telegram last showed the bot this person with the username stored (the
-- date of the message it came with), so that the newest sighting of a name
-- wins and an older holder loses it. Rows stored before have none: two of
-- them claiming one name are ambiguous until one of them is seen again.
alter table users add column username_seen_at timestamptz;
