-- The files people send the bot to read: their text, split into passages
-- as the knowledge base's documents are, kept in the knowledge base's
-- tables with the message they came with. Such a document belongs to that
-- message's chat alone: knowledge_search finds it only there, /knowledge
-- never lists it, and it goes when its message goes — forgotten with its
-- sender (/forgetme) — or sooner, RYO_RETAIN_FILES after it was read.
alter table knowledge_documents
    add column message_id bigint references messages (id) on delete cascade;
drop index knowledge_documents_name_idx;
create unique index knowledge_documents_name_idx on knowledge_documents (coalesce(chat_id, 0), lower(name))
    where message_id is null;
create unique index knowledge_documents_message_idx on knowledge_documents (message_id)
    where message_id is not null;
create index knowledge_documents_files_idx on knowledge_documents (added_at) where message_id is not null;
alter table knowledge_documents
    add constraint knowledge_documents_file_chat check (message_id is null or chat_id is not null);
