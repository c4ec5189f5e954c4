// One batch of scores. Each row is {id, key, ambiguity, score, embedding}; a null
// value removes the property (isolated nodes have no score). The key, when
// IDProperty is set, and the labels, when the pull selected labels, re-check
// that the element id still names the node that was pulled (element ids of
// deleted nodes are reused). Rows whose node is gone are written nowhere and
// returned in missing (their keys, or element ids; at most 20 a batch).
// Idempotent: the same rows give the same graph.
UNWIND $rows AS row
OPTIONAL MATCH (n) WHERE {{id "n"}} = row.id{{with .IDProperty}} AND n.{{name .}} = row.key{{end}}{{with .NodeLabels}} AND {{anyLabel "n" .}}{{end}}
FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END |
  SET n.{{name .WriteProperty}} = row.ambiguity
  {{- with .ScoreProperty}}, n.{{name .}} = row.score{{end}}
  {{- with .RunProperty}}, n.{{name .}} = $run{{end}}
  {{- with .EmbeddingProperty}}, n.{{name .}} = row.embedding{{end}})
RETURN count(n) AS written, count(CASE WHEN n IS NOT NULL THEN row.ambiguity END) AS scored,
  collect(CASE WHEN n IS NULL THEN {{if .IDProperty}}row.key{{else}}row.id{{end}} END)[..20] AS missing
