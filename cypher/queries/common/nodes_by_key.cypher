// The nodes of the selection (as pull_nodes selects them) whose key
// (IDProperty) is one of $keys, with their element ids: an approved plan
// reviewed from an edge list names its nodes by key only.
MATCH (n{{if eq (len .NodeLabels) 1}}{{labels .NodeLabels}}{{end}})
WHERE n.{{name .IDProperty}} IN $keys
{{- if gt (len .NodeLabels) 1}} AND {{anyLabel "n" .NodeLabels}}
{{- else if and (not .NodeLabels) .ExcludeLabels}} AND {{noLabel "n" .ExcludeLabels}}
{{- end}}
RETURN n.{{name .IDProperty}} AS key, {{id "n"}} AS id
