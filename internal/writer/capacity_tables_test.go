package writer

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A write of the search's own rows that times out behind an overloaded step's load is tried
// again until it goes in, and given up only when the timeout and recordSlack have passed.
func TestSettle(t *testing.T) {
	errQueued := errors.New("timed out behind the load")
	var clock time.Time
	store := capacityStore{timeout: 10 * time.Second, now: func() time.Time { return clock }}

	fails := 3
	tries, err := store.settle(context.Background(), func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("a try without the store's timeout")
		}
		if fails > 0 {
			fails--
			return errQueued
		}
		return nil
	})
	if tries != 4 || err != nil {
		t.Errorf("in on the 4th try: %d tries, %v", tries, err)
	}

	// Every try takes the whole timeout: four of them fill timeout + recordSlack.
	tries, err = store.settle(context.Background(), func(context.Context) error {
		clock = clock.Add(store.timeout)
		return errQueued
	})
	if want := int((store.timeout + recordSlack) / store.timeout); tries != want || !errors.Is(err, errQueued) {
		t.Errorf("never in: %d tries, %v; want %d and the write's error", tries, err, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	tries, _ = store.settle(ctx, func(context.Context) error {
		cancel()
		return errQueued
	})
	if tries != 1 {
		t.Errorf("a cancelled search tried %d times, want once", tries)
	}
}
