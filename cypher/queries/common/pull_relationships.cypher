// The relationships of the subgraph, each once (direction is ignored by
// the method), as one row per start node with the element ids of the end
// nodes: Bolt's cost is per record, so this is about three times as fast
// as a row per relationship. Relationships of any of RelationshipTypes (all
// when none are given) between two nodes with any of NodeLabels (any nodes
// when none are given; ends outside the node set are counted as dangling).
MATCH (s{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
{{- if gt (len .NodeLabels) 1}}
WHERE {{anyLabel "s" .NodeLabels}}
{{- end}}
WITH s, [(s)-[{{relTypes .RelationshipTypes}}]->(t{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}}){{if gt (len .NodeLabels) 1}} WHERE {{anyLabel "t" .NodeLabels}}{{end}} | {{id "t"}}] AS targets
WHERE size(targets) > 0
RETURN {{id "s"}} AS source, targets
