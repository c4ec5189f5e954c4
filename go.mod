module github.com/fondue-neo4j/fondue-neo4j

go 1.26.8
