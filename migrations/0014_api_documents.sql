-- The last good OpenAPI document of each API in RYO_APIS, fetched from its
-- URL: used when the document cannot be fetched at start, and the
-- validators (ETag, Last-Modified) sent when it is refreshed.
create table api_documents (
    api           text primary key,
    document      bytea not null,
    document_url  text not null,      -- where it came from, for relative servers
    etag          text not null default '',
    last_modified text not null default '',
    fetched_at    timestamptz not null
);
