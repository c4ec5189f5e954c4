module github.com/fondue-neo4j/fondue-neo4j

go 1.26.8

require github.com/neo4j/neo4j-go-driver/v5 v5.28.4
