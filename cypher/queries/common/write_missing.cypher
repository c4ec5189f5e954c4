// The rows of a batch of scores (the lists of write_scores) whose node was
// not found (write_scores wrote them nowhere): deleted since the pull, or
// its key or labels changed. Their keys, or element ids, at most 20.
UNWIND range(0, size($ids) - 1) AS i
CALL (i) {
  OPTIONAL MATCH (m) WHERE {{id "m"}} = $ids[i]
  RETURN m
}
WITH i, m
WHERE m IS NULL{{with .IDProperty}} OR m.{{name .}} IS NULL OR m.{{name .}} <> $keys[i]{{end}}{{with .NodeLabels}} OR NOT {{anyLabel "m" .}}{{end}}
RETURN {{if .IDProperty}}$keys[i]{{else}}$ids[i]{{end}} AS missing
LIMIT 20
