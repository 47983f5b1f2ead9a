package writer

// minOpsForBudget keeps a few early failures (a cold cache, a slow first prepare) from
// aborting a run before the error share means anything.
const minOpsForBudget = 1000

// Budget is writers.maxErrorPercent: the share of failed operations a writer tolerates.
type Budget struct {
	// MaxPercent of failed operations; 0 never aborts.
	MaxPercent int32
}

// Exceeded says whether failed of ops breaks the budget.
func (b Budget) Exceeded(ops, failed int64) bool {
	if b.MaxPercent <= 0 || ops < minOpsForBudget {
		return false
	}
	return failed*100 > ops*int64(b.MaxPercent)
}
