// Package controllers holds the reconcilers: orchestration and I/O. What to do is decided by
// pure functions, here (decide and its stages) or in internal/ (lending, sweep, jobs,
// datacenter); the reconcilers read, call them, and carry out what they return. Carrying out
// is where the apiserver can refuse a write for good: that refusal becomes the stage's
// condition, in one way for both kinds (lending.RefusedMessage).
//
// How a pass flows through the files:
//
//	run    benchmarkrun_controller.go  Reconcile: observe (benchmarkrun_observe.go), decide, perform, writeStatus
//	       benchmarkrun_decide.go      decide: deletion, finish (give back, then the outcome), or advance;
//	                                   each stage returns a stageResult (conditions, records of status, the
//	                                   datacenter change, Jobs, reports, the target) and apply combines them in
//	                                   order; no stage writes the run, and a stage's helpers return results
//	                                   it merges (find is in this file)
//	         benchmarkrun_lock.go        take the datacenter through lending's take chain, record the originals
//	         benchmarkrun_prepare.go     patch the datacenter to the target, wait for it, drift
//	         benchmarkrun_jobstage.go    preflight and setup: one Job each, through runJob
//	         benchmarkrun_writers.go     the writer Job, reports gathered, results merged
//	         benchmarkrun_restore.go     stop the Jobs, give the datacenter back (lending.PlanRestore)
//	       benchmarkrun_reports.go     reading and storing the writers' report ConfigMaps
//	sweep  benchmarksweep_controller.go Reconcile: observeSweep, sweep.Decide (and sweep.DecideTake), perform:
//	                                   take, create the next run, tabulate, conclude; writeStatus
//	       benchmarksweep_hold.go       restore atEnd: observeHold, performTake, give back (lending.PlanRestore)
//	both   *_status.go                  conditions, phase, outcome, pure
//	       status_writer.go             the one status writer, event policy and finalizer patch of both kinds
//	       lending.go                   the datacenter I/O both holders share (patch, holder alive, queue, watches)
//	       manager.go                   wires the reconcilers into a manager
//
// Taking a datacenter is one chain for both holders (lending.NewTakeChain: exists, own lock,
// lock kept, opted in, the holder's admission checks, busy, queue, the holder's waits); giving
// it back is one plan (lending.PlanRestore). A holder keeps its originals in the one API type
// cbv1.HeldDatacenter, read and written through lending.OriginalsOf and lending.Stored.
package controllers
