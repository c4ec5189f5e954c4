// Take the lock named $name if it is free, expired, already ours, or held
// by $takeover (a holder that is provably gone: see AcquireLock), in one
// transaction. The first SET takes the node's write lock before the owner
// is read, so that two runs cannot both see a free lock. Times are the
// server's (timestamp(), epoch milliseconds): no clock skew between hosts.
// The holder's host, boot id, pid namespace and pid say where it runs.
MERGE (l{{label .Label}} {name: $name})
SET l.seq = coalesce(l.seq, 0) + 1
WITH l, timestamp() AS now
WITH l, now, (l.owner IS NULL OR l.owner = $owner OR l.expires < now OR l.owner = $takeover) AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
  SET l.owner = $owner, l.run = $run, l.host = $host, l.boot_id = $boot, l.pid_ns = $pidns, l.pid = $pid,
    l.acquired = now, l.expires = now + $ttl)
RETURN free, l.owner AS owner, l.run AS run, l.host AS host, l.boot_id AS boot, l.pid_ns AS pidns, l.pid AS pid,
  l.expires - now AS remaining
