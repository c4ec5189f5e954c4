// One batch of scores. Each row is {id, key, ambiguity, score, entities,
// embedding}; a null
// value removes the property (isolated nodes have no score). The node is found
// by its element id in a subquery of its own (so that the planner always seeks
// by element id, the fastest plan on every version), then the key, when
// IDProperty is set, and the labels, when the pull selected labels, re-check
// that the element id still names the node that was pulled (element ids of
// deleted nodes are reused). Rows whose node is gone are written nowhere
// (write_missing names them). Idempotent: the same rows give the same graph.
UNWIND $rows AS row
CALL (row) {
  MATCH (m) WHERE {{id "m"}} = row.id
  RETURN m
}
WITH row, m AS n
{{- if or .IDProperty .NodeLabels}}
WHERE {{with .IDProperty}}n.{{name .}} = row.key{{end}}{{if and .IDProperty .NodeLabels}} AND {{end}}{{with .NodeLabels}}{{anyLabel "n" .}}{{end}}
{{- end}}
SET n.{{name .WriteProperty}} = row.ambiguity
{{- with .ScoreProperty}}, n.{{name .}} = row.score{{end}}
{{- with .EntitiesProperty}}, n.{{name .}} = row.entities{{end}}
{{- with .RunProperty}}, n.{{name .}} = $run{{end}}
{{- with .EmbeddingProperty}}, n.{{name .}} = row.embedding{{end}}
RETURN count(n) AS written, count(row.ambiguity) AS scored
