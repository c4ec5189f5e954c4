// The relationships of the subgraph, each once (direction is ignored by
// the method), as lists: per start node, the element ids of the ends of
// its relationships of any of RelationshipTypes (when none are given,
// of any type but ExcludeTypes) to nodes with any of NodeLabels (any
// nodes when none are given; ends outside the node set are counted as
// dangling). Element ids, not keys:
// an element id is made from the relationship's record, a key is read from
// the other end's properties, which cost the server half again as much. In
// records of $chunk start nodes (Bolt's cost is per record), and only for
// the start nodes whose element id ends with one of the characters $in,
// or, when $in is null, with none of the characters $notIn (null: every
// node): the client reads several such parts at once, and every node is in
// exactly one of them.
MATCH (s{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
WHERE {{if gt (len .NodeLabels) 1}}{{anyLabel "s" .NodeLabels}} AND {{end -}}
  CASE WHEN $in IS NOT NULL THEN right({{id "s"}}, 1) IN $in
    ELSE $notIn IS NULL OR NOT coalesce(right({{id "s"}}, 1) IN $notIn, false) END
WITH collect(s) AS sources
UNWIND range(0, size(sources) - 1, $chunk) AS i
WITH sources[i..i + $chunk] AS chunk
RETURN [s IN chunk | {{id "s"}}] AS source,
  [s IN chunk | [(s)-[{{relTypesBut .RelationshipTypes .ExcludeTypes}}]->(t{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}}){{if gt (len .NodeLabels) 1}} WHERE {{anyLabel "t" .NodeLabels}}{{end}} | {{id "t"}}]] AS targets
