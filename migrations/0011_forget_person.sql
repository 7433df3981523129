-- /forgetme deletes everything ryo keeps about one person. Their messages
-- go with their user row, so that a message stored while the row is
-- deleted cannot keep it (or them) alive; the rest is found by these
-- indexes.
alter table messages drop constraint messages_sender_id_fkey;
alter table messages add constraint messages_sender_id_fkey
    foreign key (sender_id) references users (id) on delete cascade;
create index messages_sender_idx on messages (sender_id) where sender_id is not null;
-- Deleting a message (here, or in the sweep of group context) clears the
-- source of the memories learned from it.
create index memories_source_idx on memories (source_message_id) where source_message_id is not null;
create index memories_owner_idx on memories (owner_id);
create index actions_requester_idx on actions (requester_id);
create index views_viewer_idx on views (viewer_id);
create index updates_sender_all_idx on updates (sender_id) where sender_id is not null;
