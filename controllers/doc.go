// Package controllers holds the reconcilers: orchestration and I/O only. Every decision is a
// pure function, here or in internal/ (lending, sweep, jobs, datacenter).
//
// How a pass flows through the files:
//
//	run    benchmarkrun_controller.go  Reconcile: observe (benchmarkrun_observe.go), decide, perform
//	       benchmarkrun_decide.go      decide: deletion, outcome, or advance, which applies in order
//	                                   the stageResult each stage returns (find is in this file):
//	         benchmarkrun_lock.go        admit, take the lock in queue order, record the originals
//	         benchmarkrun_prepare.go     patch the datacenter to the target, wait for it, drift
//	         benchmarkrun_jobstage.go    preflight and setup: one Job each, through runJob
//	         benchmarkrun_writers.go     the writer Job, reports stored, results merged
//	         benchmarkrun_restore.go     stop the Jobs, give the datacenter back (internal/lending)
//	sweep  benchmarksweep_controller.go Reconcile: observeSweep, sweep.Decide (and DecideTake), perform:
//	                                   take, create the next run, tabulate, conclude
//	       benchmarksweep_hold.go       restore atEnd: observeHold, performTake, give back (lending)
//	both   *_status.go                  conditions, phase, outcome; status_writer.go writes status once
//	       lending.go                   the datacenter I/O both holders share; manager.go wires them
package controllers
