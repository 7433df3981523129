-- A crash of one PostgreSQL process (one the kernel killed for memory)
-- makes the server end every connection and start afresh, as a restart
-- does, but pg_postmaster_start_time() stays as it was: every replica
-- looked gone until it reconnected, though it beat after the server
-- started, and the first one back took the others' chats while their turns
-- still ran. (A failover to a standby, started long before, did the same.)
-- connected_at is when a replica's connection, the one holding its lock,
-- was made: a holder whose lock is gone is known to be gone only when
-- another replica's connection lives that was made before the holder last
-- beat — no restart came between. Otherwise its chats are taken once
-- their leases run out, which its first heartbeat back prevents.
--
-- A holder whose lock is gone and whose lease ran out runs nothing under
-- that lease, whether it died or is reconnecting (a turn it still runs
-- there is fenced by now): the chat is not held for it. One that never
-- came back — killed while the database was away, or a lone ryo killed and
-- started again under a new name — had its chats held for it a minute
-- (Affinity) once their leases ran out, each taken only by the sweep's
-- force, seconds after its next message.
alter table replicas add column connected_at timestamptz not null default now();

create or replace function lease_orphaned(holder text, until timestamptz, ttl interval) returns boolean language sql stable as $$
    select until < now() + ttl - interval '2 seconds'
        and coalesce((select not replica_alive(h.lock_key) and (until < now() or exists (select 1 from replicas o
                where o.connected_at < h.seen_at and replica_alive(o.lock_key)))
            from replicas h where h.id = holder), true)
$$;
