// The text properties of some nodes (element ids $ids): what could name
// the nodes that have none of the display properties.
MATCH (n)
WHERE elementId(n) IN $ids
RETURN [k IN keys(n) WHERE n[k] IS :: STRING] AS properties
