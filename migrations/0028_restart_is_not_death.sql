-- A restart of PostgreSQL closes every replica's connection, and with it
-- the lock that says it lives: for the moment until they reconnect, every
-- replica looked gone, and the first one back took the others' chats
-- while their turns still ran there (an answer sent, then sent again). A
-- replica whose last beat came before the server started is not known to
-- be gone: its chats are taken only once their leases run out, which its
-- first heartbeat back prevents. A replica that beat since and lost its
-- lock is gone, as before.
create or replace function lease_orphaned(holder text, until timestamptz, ttl interval) returns boolean language sql stable as $$
    select until < now() + ttl - interval '2 seconds'
        and coalesce((select seen_at > pg_postmaster_start_time() and not replica_alive(lock_key)
            from replicas where id = holder), true)
$$;
