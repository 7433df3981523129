-- Several ryo processes may share one database. Each one is a replica: it
-- writes down that it lives (seen_at, renewed every second) and holds a
-- session advisory lock on lock_key for as long as its connection lives, so
-- that the others see a killed replica gone the instant its connection
-- drops. A chat's updates run on the replica that holds the chat's lease,
-- one at a time and in order; a lease is renewed with its holder's
-- heartbeat, and may be taken once it ran out or its holder is gone.
create table replicas (
    id         text primary key,
    lock_key   bigint not null,
    started_at timestamptz not null default now(),
    seen_at    timestamptz not null default now(),
    leader     boolean not null default false -- polls Telegram, in polling mode
);

create table chat_leases (
    chat_id bigint primary key,   -- 0 for updates that name no chat
    replica text not null,
    until   timestamptz not null
);
create index chat_leases_replica_idx on chat_leases (replica);

-- Whether the replica holding lock_key still has its connection open.
create function replica_alive(key bigint) returns boolean language sql stable as $$
    select exists (select 1 from pg_locks
        where locktype = 'advisory' and granted and objsubid = 1
          and database = (select oid from pg_database where datname = current_database())
          and classid = (key >> 32)::oid and objid = (key & 4294967295)::oid)
$$;

-- Whether a lease's holder is gone: its connection closed and it has not
-- renewed the lease for two seconds, so that a blip of its connection is
-- not taken for its death. (ttl is the time a renewal gives a lease.)
create function lease_orphaned(holder text, until timestamptz, ttl interval) returns boolean language sql stable as $$
    select until < now() + ttl - interval '2 seconds'
        and not replica_alive((select lock_key from replicas where id = holder))
$$;
