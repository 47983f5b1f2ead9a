// Package lending is the one model of lending a CassandraDatacenter to a holder: a
// BenchmarkRun, or a BenchmarkSweep with restore atEnd that holds it for all its points. A
// holder takes the datacenter (the lock annotation), records its originals before anything
// changes it, patches it, and gives it back: each of size and config returns to the original,
// then the lock is released. Both controllers decide through this package; only what is one
// holder's alone (a run's queue position and drift checks, a sweep's runs) stays with it.
//
// Everything here is pure: the controllers observe, call these functions, and perform.
//
// Which reasons end a restore, decided once for both holders (Final):
//   - the condition is True (Restored, NothingToRestore, KeptChanges, HeldBySweep);
//   - RestoreStuck, LockLost and DatacenterDrifted: given up on, with what to do by hand named.
//
// Refused is not final by itself: the apiserver refused the restore's patch, and the holder may
// still hold the lock. The next plan sees the refusal (Restore.Refused), releases the lock if
// the holder still has it, and is done with the refusal named. Runs always worked this way; a
// sweep used to release in the same pass as the refusal and call Refused final, which left a
// sweep that crashed between the two holding the lock with a final condition.
package lending
