// One batch of scores. Each row is {id, key, ambiguity, score, embedding}; a null
// value removes the property (isolated nodes have no score). The key, when
// IDProperty is set, re-checks that the internal id still names the node
// that was pulled. Idempotent: the same rows give the same graph.
UNWIND $rows AS row
MATCH (n) WHERE {{id "n"}} = row.id{{with .IDProperty}} AND n.{{name .}} = row.key{{end}}
SET n.{{name .WriteProperty}} = row.ambiguity
{{- with .ScoreProperty}}, n.{{name .}} = row.score{{end}}
{{- with .RunProperty}}, n.{{name .}} = $run{{end}}
{{- with .EmbeddingProperty}}, n.{{name .}} = row.embedding{{end}}
RETURN count(n) AS written, count(row.ambiguity) AS scored
