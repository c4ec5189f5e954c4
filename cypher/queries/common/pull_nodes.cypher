// The nodes of the subgraph: those with any of NodeLabels (all nodes but
// fondue-neo4j's own bookkeeping nodes when none are given), with their
// internal id, their labels (for the summary's counts per label) and, when
// IDProperty is set, their key (and whether they carry the split marker
// Label, when set: clones have no key), and its saved embedding when
// EmbeddingProperty is set, and its display name when DisplayProperties
// are set: the first of them that the node has, and the values of
// Properties (written: what the last run wrote, read back). In records of $chunk
// nodes, each column a list with a value per node: Bolt's cost is per
// record, and a record per node cost the client more than the server.
MATCH (n{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
{{- if gt (len .NodeLabels) 1}}
WHERE {{anyLabel "n" .NodeLabels}}
{{- else if and (not .NodeLabels) .ExcludeLabels}}
WHERE {{noLabel "n" .ExcludeLabels}}
{{- end}}
WITH collect(n) AS nodes
UNWIND range(0, size(nodes) - 1, $chunk) AS i
WITH nodes[i..i + $chunk] AS chunk
RETURN [n IN chunk | {{id "n"}}] AS id, [n IN chunk | labels(n)] AS labels{{with .IDProperty}}, [n IN chunk | n.{{name .}}] AS key{{if $.Label}}, [n IN chunk | n{{label $.Label}}] AS clone{{end}}{{end}}{{with .EmbeddingProperty}}, [n IN chunk | n.{{name .}}] AS embedding{{end}}{{with .DisplayProperties}}, [n IN chunk | {{firstOf "n" .}}] AS display{{end}}{{with .EvidenceProperties}}, [n IN chunk | [{{props "n" .}}]] AS evidence{{end}}{{with .Properties}}, [n IN chunk | [{{props "n" .}}]] AS written{{end}}
