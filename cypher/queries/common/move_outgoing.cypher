// Move outgoing relationships of type Type, each from node mv.from to node
// mv.to: the same type, direction and properties, then the old one is
// deleted; the new ones' ids come back, in the order of the rows. Each row
// of $rels is {rid, other, from, to}; the relationship is
// found by its element id (a seek, whatever the node's degree) and checked
// to still join from and other. A self-loop (other = from) becomes a
// self-loop of the new node, unless mv.oneEnd: then only its start moves.
UNWIND $rels AS mv
MATCH (a) WHERE {{id "a"}} = mv.from
MATCH (b) WHERE {{id "b"}} = mv.to
CALL (mv) {
  MATCH ()-[r{{relType .Type}}]->() WHERE {{id "r"}} = mv.rid
  RETURN r
}
WITH a, b, r, endNode(r) AS o, mv
WHERE startNode(r) = a AND {{id "o"}} = mv.other
WITH b, r, CASE WHEN o = a AND NOT coalesce(mv.oneEnd, false) THEN b ELSE o END AS tgt
CREATE (b)-[r2{{relType .Type}}]->(tgt)
SET r2 = properties(r)
DELETE r
RETURN collect({{id "r2"}}) AS moved
