// The relationships of the subgraph, each once (direction is ignored by
// the method): of any of RelationshipTypes (all when none are given),
// between two nodes with any of NodeLabels.
MATCH (s{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})-[r{{relTypes .RelationshipTypes}}]->(t{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
{{- if gt (len .NodeLabels) 1}}
WHERE {{anyLabel "s" .NodeLabels}} AND {{anyLabel "t" .NodeLabels}}
{{- end}}
RETURN {{id "s"}} AS source, {{id "t"}} AS target
