// Move incoming relationships of type Type from node $from to node $to:
// the same type, direction and properties, then the old one is deleted.
// Each row of $rels is {rid, other}. (Self-loops are moved as outgoing.)
MATCH (a) WHERE {{id "a"}} = $from
MATCH (b) WHERE {{id "b"}} = $to
UNWIND $rels AS mv
MATCH (a)<-[r{{relType .Type}}]-(o) WHERE {{id "r"}} = mv.rid AND {{id "o"}} = mv.other
CREATE (b)<-[r2{{relType .Type}}]-(o)
SET r2 = properties(r)
DELETE r
RETURN count(r2) AS moved
