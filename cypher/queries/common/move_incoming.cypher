// Move incoming relationships of type Type, each from node mv.from to node
// mv.to: the same type, direction and properties, then the old one is
// deleted; the new ones' ids come back, in the order of the rows. Each row
// of $rels is {rid, other, from, to}; the relationship is
// found by its element id (a seek, whatever the node's degree) and checked
// to still join other and from. (Self-loops are moved as outgoing.)
UNWIND $rels AS mv
MATCH (a) WHERE {{id "a"}} = mv.from
MATCH (b) WHERE {{id "b"}} = mv.to
CALL (mv) {
  MATCH ()-[r{{relType .Type}}]->() WHERE {{id "r"}} = mv.rid
  RETURN r
}
WITH a, b, r, startNode(r) AS o, mv
WHERE endNode(r) = a AND {{id "o"}} = mv.other
CREATE (b)<-[r2{{relType .Type}}]-(o)
SET r2 = properties(r)
DELETE r
RETURN collect({{id "r2"}}) AS moved
