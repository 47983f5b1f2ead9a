package controllers

import (
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/capacity"
)

// capacityWindow is the longest a capacity search of steps of step can keep its writers.
func capacityWindow(c *cbv1.CapacitySpec, step time.Duration) time.Duration {
	var ext int
	if c.MaxExtensions != nil {
		ext = int(*c.MaxExtensions)
	}
	var wait time.Duration
	if c.DebtWaitLimit != nil {
		wait = c.DebtWaitLimit.Duration
	}
	return capacity.Longest(int(c.MaxSteps), ext, step, wait)
}
