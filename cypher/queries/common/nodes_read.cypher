// The nodes $ids, with their labels and properties (a node not found
// returns no row).
UNWIND $ids AS id
MATCH (n) WHERE {{id "n"}} = id
RETURN id, labels(n) AS labels, properties(n) AS props
