// Delete at most $limit relationships of type Type whose property
// Property is not $value (or is absent): what a run that replaces them
// left of the earlier runs'.
MATCH ()-[r{{relType .Type}}]->()
WHERE r.{{name .Property}} IS NULL OR r.{{name .Property}} <> $value
WITH r LIMIT $limit
DELETE r
RETURN count(r) AS deleted
