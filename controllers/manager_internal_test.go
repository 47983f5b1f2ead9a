package controllers

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// syncCache is a cache whose informers have synced or not.
type syncCache struct {
	cache.Cache
	synced bool
}

func (c syncCache) WaitForCacheSync(context.Context) bool { return c.synced }

// The readiness probe answers from the informers' sync, not a ping: a manager still listing
// what it watches is not ready.
func TestReadyOnceTheCacheSynced(t *testing.T) {
	if err := cacheSynced(syncCache{synced: false})(nil); err == nil {
		t.Error("ready before the caches synced")
	}
	if err := cacheSynced(syncCache{synced: true})(nil); err != nil {
		t.Errorf("not ready with synced caches: %v", err)
	}
}
