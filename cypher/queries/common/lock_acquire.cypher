// Take the lock named $name if it is free, expired or already ours, in one
// transaction. The first SET takes the node's write lock before the owner
// is read, so that two runs cannot both see a free lock. Times are the
// server's (timestamp(), epoch milliseconds): no clock skew between hosts.
MERGE (l{{label .Label}} {name: $name})
SET l.seq = coalesce(l.seq, 0) + 1
WITH l, timestamp() AS now
WITH l, now, (l.owner IS NULL OR l.owner = $owner OR l.expires < now) AS free
FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END |
  SET l.owner = $owner, l.run = $run, l.host = $host, l.acquired = now, l.expires = now + $ttl)
RETURN free, l.owner AS owner, l.run AS run, l.host AS host, l.expires - now AS remaining
