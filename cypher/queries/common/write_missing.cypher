// The rows of a batch of scores whose node was not found (write_scores wrote
// them nowhere): deleted since the pull, or its key or labels changed. Their
// keys, or element ids, at most 20.
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (m) WHERE {{id "m"}} = row.id
  RETURN m
}
WITH row, m
WHERE m IS NULL{{with .IDProperty}} OR m.{{name .}} IS NULL OR m.{{name .}} <> row.key{{end}}{{with .NodeLabels}} OR NOT {{anyLabel "m" .}}{{end}}
RETURN {{if .IDProperty}}row.key{{else}}row.id{{end}} AS missing
LIMIT 20
