// Package writer is the load generator of a benchmark run: one writer of N, which meets the
// others at a start barrier kept in Cassandra, drives its share of the load in a closed or
// open loop, and reports what it measured as a summary.Summary.
//
// Where things are:
//   - run.go: Config and Run, which builds the load and runs its stages in order.
//   - load.go: the load (its connection, shape, mix and what the meeting learns) and newLoad.
//   - loadstage.go, rendezvous.go, window.go, capacity_steps.go: the stages — the dataset's
//     load stage, the start barrier, the measured window, a capacity search's rounds
//     (capacity_search.go is writer 0's search, capacity_tables.go its tables).
//   - engine.go: the load loop every stage drives, closed or paced (schedule.go, pace_*.go).
//   - cqlop.go, direct.go: one goroutine's operation, through the driver or cql.Direct.
//   - stats.go, outcome.go, timeline.go, metrics.go, watch.go: what the loop records and how
//     it is observed; serverwatch.go and cgroup.go: the nodes' and the writer's own figures.
//   - clock.go: the writer's one clock, Config.Now, against Cassandra's.
//   - barrier*.go: the start and end barriers kept in Cassandra.
package writer
