// The relationship types that some relationship has, for the hint of a
// mistyped type: db.relationshipTypes() also lists types whose
// relationships were all deleted.
CALL db.relationshipTypes() YIELD relationshipType
WITH relationshipType
WHERE EXISTS { MATCH ()-[r:$(relationshipType)]->() }
RETURN relationshipType
