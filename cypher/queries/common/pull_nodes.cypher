// The nodes of the subgraph: those with any of NodeLabels (all nodes but
// fondue-neo4j's own bookkeeping nodes when none are given), with their
// internal id, their labels (for the summary's counts per label) and, when
// IDProperty is set, their key (and whether they carry the split marker
// Label, when set: clones have no key), and its saved embedding when
// EmbeddingProperty is set, and its display name when DisplayProperties
// are set: the first of them that the node has.
MATCH (n{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
{{- if gt (len .NodeLabels) 1}}
WHERE {{anyLabel "n" .NodeLabels}}
{{- else if and (not .NodeLabels) .ExcludeLabels}}
WHERE {{noLabel "n" .ExcludeLabels}}
{{- end}}
RETURN {{id "n"}} AS id, labels(n) AS labels{{with .IDProperty}}, n.{{name .}} AS key{{if $.Label}}, n{{label $.Label}} AS clone{{end}}{{end}}{{with .EmbeddingProperty}}, n.{{name .}} AS embedding{{end}}{{with .DisplayProperties}}, {{firstOf "n" .}} AS display{{end}}
