// Node properties under a uniqueness (or node key) constraint, with the
// labels they apply to: a split's clone cannot carry a copy of them.
SHOW CONSTRAINTS YIELD type, entityType, labelsOrTypes, properties
WHERE entityType = 'NODE' AND (type CONTAINS 'UNIQUE' OR type CONTAINS 'KEY')
RETURN labelsOrTypes AS labels, properties
