// Release our lock (and only ours).
MATCH (l{{label .Label}} {name: $name})
WHERE l.owner = $owner
DELETE l
RETURN count(*) AS released
