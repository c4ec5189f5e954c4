// The nodes with property IDProperty one of $values (or, with Property
// instead, any value of it), with a label of NodeLabels (none: any node
// but those with one of ExcludeLabels), with their labels and properties.
MATCH (n{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
WHERE {{with .IDProperty}}n.{{name .}} IN $values{{else}}n.{{name .Property}} IS NOT NULL{{end}}
{{- if gt (len .NodeLabels) 1}} AND {{anyLabel "n" .NodeLabels}}
{{- else if and (not .NodeLabels) .ExcludeLabels}} AND {{noLabel "n" .ExcludeLabels}}
{{- end}}
RETURN {{id "n"}} AS id, labels(n) AS labels, properties(n) AS props
