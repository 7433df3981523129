-- The knowledge base: documents admins add (a file or a page), split into
-- chunks along their headings and paragraphs. A document belongs to one
-- group (chat) or, with chat null, to every conversation. Adding a
-- document with the name of one already there, in the same place,
-- replaces it.
create table knowledge_documents (
    id         bigserial primary key,
    chat_id    bigint,                             -- the group it is for; null: global
    name       text not null check (length(name) between 1 and 200),
    title      text not null default '',
    source     text not null default '',           -- the file's name or the page's URL
    added_by   bigint not null,
    added_at   timestamptz not null,
    bytes      bigint not null,
    chunks     integer not null
);
create unique index knowledge_documents_name_idx on knowledge_documents (coalesce(chat_id, 0), lower(name));
create index knowledge_documents_chat_idx on knowledge_documents (chat_id, id desc);

-- A chunk is one passage of a document, with the path of headings above
-- it ("Install › Docker"). search is its words and its headings' in any
-- language ('simple': no stemming, no stop words); heading_search its
-- headings' alone, small, which tells a match in them (it counts double)
-- without reading the whole text's vector again; embedding, when an
-- embedding model is configured.
create table knowledge_chunks (
    id          bigserial primary key,
    document_id bigint not null references knowledge_documents (id) on delete cascade,
    ord         integer not null,
    heading     text not null default '',
    text        text not null,
    search      tsvector generated always as (to_tsvector('simple', heading || ' ' || text)) stored,
    heading_search tsvector generated always as (to_tsvector('simple', heading)) stored,
    embedding   real[],
    unique (document_id, ord)
);
create index knowledge_chunks_search_idx on knowledge_chunks using gin (search);
