// Delete the nodes $ids (DELETE, not DETACH DELETE: a relationship left
// behind fails the transaction).
UNWIND $ids AS id
MATCH (m) WHERE {{id "m"}} = id
DELETE m
RETURN count(*) AS deleted
