// Set properties of node $id ($props; a null removes one).
MATCH (n) WHERE {{id "n"}} = $id
SET n += $props
RETURN count(n) AS set
