// Move outgoing relationships of type Type from node $from to node $to:
// the same type, direction and properties, then the old one is deleted.
// Each row of $rels is {rid, other}; a self-loop of $from becomes one of $to.
MATCH (a) WHERE {{id "a"}} = $from
MATCH (b) WHERE {{id "b"}} = $to
UNWIND $rels AS mv
MATCH (a)-[r{{relType .Type}}]->(o) WHERE {{id "r"}} = mv.rid AND {{id "o"}} = mv.other
WITH b, r, CASE WHEN o = a THEN b ELSE o END AS tgt
CREATE (b)-[r2{{relType .Type}}]->(tgt)
SET r2 = properties(r)
DELETE r
RETURN count(r2) AS moved
