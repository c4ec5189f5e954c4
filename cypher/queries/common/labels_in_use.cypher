// The node labels that some node has, for the hint of a mistyped label:
// db.labels() also lists labels whose nodes were all deleted.
CALL db.labels() YIELD label
WITH label
WHERE EXISTS { MATCH (n:$(label)) }
RETURN label
