// Every relationship of the nodes $ids, once each per node (a self-loop
// is listed twice: the client keeps one), with the node's id (node), the
// other end's labels and its Properties.
UNWIND $ids AS id
MATCH (n)-[r]-(o) WHERE {{id "n"}} = id
RETURN id AS node, {{id "r"}} AS rid, type(r) AS type, startNode(r) = n AS outgoing, {{id "o"}} AS other,
  labels(o) AS otherLabels, {{if .Properties}}o{ {{- range $i, $p := .Properties}}{{if $i}}, {{end}}.{{name $p}}{{end -}} }{{else}}{}{{end}} AS otherProps
