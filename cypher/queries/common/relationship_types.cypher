// Every relationship type in use.
CALL db.relationshipTypes() YIELD relationshipType
RETURN relationshipType
