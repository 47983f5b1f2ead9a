package summary

// Capacity is what writer 0's capacity search found, compact for the termination message:
// the results turn it into status.results.capacity.
type Capacity struct {
	// Ops is the highest rate met; Missed the lowest missed (0: none).
	Ops    int64 `json:"ops"`
	Missed int64 `json:"miss,omitempty"`
	// Stop is why the search ended (a cbv1.CapacityStop), Error what interrupted it.
	Stop  string `json:"stop"`
	Error string `json:"err,omitempty"`
	// Knee is the verdict at the lowest rate missed, and its first pieces of evidence.
	Knee         string   `json:"knee,omitempty"`
	KneeEvidence []string `json:"kev,omitempty"`
	Steps        []Step   `json:"steps,omitempty"`
}

// Step is one rate the search tried.
type Step struct {
	Target     int64 `json:"t"`
	Ops        int64 `json:"o"`
	Operations int64 `json:"n"`
	Timeouts   int64 `json:"to,omitempty"`
	Missed     int64 `json:"m,omitempty"`
	// P99 and P999 are microseconds; Spread the p99's 95% interval in percent of it.
	P99    int64  `json:"p99"`
	P999   int64  `json:"p999"`
	Spread string `json:"sp,omitempty"`
	Runs   int32  `json:"r"`
	Met    bool   `json:"ok,omitempty"`
	Reason string `json:"why,omitempty"`
	// Verdict is the step's bottleneck verdict.
	Verdict string `json:"v,omitempty"`
	// WaitMillis is the wait for the nodes' debt after the step, Owed what was still owed.
	WaitMillis int64  `json:"dw,omitempty"`
	Owed       string `json:"owed,omitempty"`
}
