package writer

import "context"

// Arrive records b's arrival and stops there, as a writer that stopped between arriving and
// counting does: the barrier's tests play that writer with it.
func (b Barrier) Arrive(ctx context.Context) error { return b.arrive(ctx) }
