// Every relationship of the nodes $ids, once each per node (a self-loop
// has other = the node), with the node's id (node). origin is set when the
// other end is a clone made by run $run: the internal id of the node it
// was split from. The other end's labels, key (IDProperty) and name
// (DisplayProperty) tell whether a pull would select it, and name it.
UNWIND $ids AS id
MATCH (n)-[r]-(o) WHERE {{id "n"}} = id
RETURN id AS node, {{id "r"}} AS rid, type(r) AS type, startNode(r) = n AS outgoing, {{id "o"}} AS other,
  CASE WHEN o{{label .Label}} AND o.fondue_split_run = $run THEN o.fondue_split_from_id END AS origin,
  labels(o) AS otherLabels{{with .IDProperty}}, o.{{name .}} AS otherKey{{end}}{{with .DisplayProperties}}, {{firstOf "o" .}} AS otherName{{end}}
