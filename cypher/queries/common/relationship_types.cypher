// Every relationship type that some relationship has (db.relationshipTypes()
// also lists types whose relationships were all deleted).
CALL db.relationshipTypes() YIELD relationshipType
WITH relationshipType
WHERE EXISTS { MATCH ()-[r:$(relationshipType)]->() }
RETURN relationshipType
