// Every node label that some node has: a configured label that is not here
// is a typo (db.labels() also lists labels whose nodes were all deleted).
CALL db.labels() YIELD label
WITH label
WHERE EXISTS { MATCH (n:$(label)) }
RETURN label
