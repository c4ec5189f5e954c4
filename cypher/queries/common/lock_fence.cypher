// Fencing, inside each write transaction of a run that holds a lock: take
// the lock node's write lock (so no other run can take the lock until this
// transaction ends) and check that the lock is still ours and unexpired.
// No row means the lock was lost: the transaction must write nothing.
MATCH (l{{label .Label}} {name: $lock_name})
WHERE l.owner = $lock_owner AND l.expires > timestamp()
SET l.fenced = timestamp()
RETURN l.expires - timestamp() AS remaining
