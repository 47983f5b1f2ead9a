// A module of its own, so that the ScyllaDB fork measured here never enters cassbench's own
// module graph (go.mod at the repository root).
module github.com/cassbench/cassbench/hack/driverbench

go 1.26.3

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/gocql/gocql v1.7.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.18.1 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

replace github.com/gocql/gocql => github.com/scylladb/gocql v1.17.0
