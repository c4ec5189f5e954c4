// Why a subgraph of NodeLabels has no relationships: its relationships of
// RelationshipTypes (any type but ExcludeTypes when none are given) whose
// other end has none of NodeLabels, counted by the labels of that end (fondue-neo4j's
// own bookkeeping nodes left out).
MATCH (s)-[r{{relTypesBut .RelationshipTypes .ExcludeTypes}}]-(t)
WHERE {{anyLabel "s" .NodeLabels}} AND NOT {{anyLabel "t" .NodeLabels}} AND {{noLabel "t" .ExcludeLabels}}
RETURN labels(t) AS labels, count(r) AS relationships
