// Set relationships of type Type, one per row $links[i] {from, to, props}:
// the properties of every relationship of that type from node from to
// node to, created when there is none (a null value removes one). Each end
// is found by its element id in a subquery of its own (a seek); a row
// whose end is gone sets nothing. Idempotent.
UNWIND range(0, size($links) - 1) AS i
WITH i, $links[i] AS l
CALL (l) {
  MATCH (a) WHERE {{id "a"}} = l.from
  RETURN a
}
CALL (l) {
  MATCH (b) WHERE {{id "b"}} = l.to
  RETURN b
}
MERGE (a)-[r{{relType .Type}}]->(b)
SET r += l.props
RETURN count(DISTINCT i) AS set
