// Extend our lock; no row means it was lost (expired and taken over).
MATCH (l{{label .Label}} {name: $name})
WHERE l.owner = $owner
SET l.expires = timestamp() + $ttl
RETURN l.expires AS expires
