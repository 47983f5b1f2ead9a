// Package controllers holds the reconcilers: orchestration and I/O only. Every decision is a
// pure function, here or in internal/ (lending, sweep, jobs, datacenter).
//
// How a pass flows through the files:
//
//	run    benchmarkrun_controller.go  Reconcile: observe (datacenter, lock holder, queue, Jobs, pods)
//	       benchmarkrun_decide.go      → decide: deletion, outcome, or advance, which calls the stages:
//	         benchmarkrun_lock.go        find, admit, take the lock in queue order, record the originals
//	         benchmarkrun_prepare.go     preflight, patch the datacenter to the target, wait, drift
//	         benchmarkrun_jobstage.go    preflight and setup: one Job each, read through runJob
//	         benchmarkrun_writers.go     the writer Job, reports stored, results merged
//	         benchmarkrun_restore.go     stop the Jobs, give the datacenter back (internal/lending)
//	       benchmarkrun_controller.go  → perform the step, then writeStatus (benchmarkrun_status.go)
//	sweep  benchmarksweep_controller.go Reconcile: observe → sweep.Decide and internal/sweep's
//	                                    hold (take/restore through internal/lending) → perform;
//	                                    status in benchmarksweep_status.go
//	both   lending.go                   the datacenter I/O both holders share: patch, lock holder, queue
//	       manager.go                   the manager, its caches, probes and both reconcilers
package controllers
