package mgmtapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// fakeNode records what the server asked of it and answers from its fields.
type fakeNode struct {
	mu sync.Mutex

	running      bool
	reachable    bool   // Query succeeds
	bootstrapped string // system.local bootstrapped
	version      string
	endpoints    []map[string]string
	seeds        []string
	snapshots    []map[string]any
	roles        []map[string]any // rows of system_auth.roles
	startErr     error
	opErr        error         // every nodetool command but reloadseeds
	block        chan struct{} // when set, Decommission and Cleanup wait for it

	calls   []string
	queries []string
}

func (f *fakeNode) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeNode) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.calls...)
}

func (f *fakeNode) Start(_ context.Context, replaceIP string) error {
	f.record("start replace=%q", replaceIP)
	if f.startErr != nil {
		return f.startErr
	}
	f.mu.Lock()
	f.running = true
	f.mu.Unlock()
	return nil
}

func (f *fakeNode) Running() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running
}

func (f *fakeNode) Query(_ context.Context, stmt string, _ ...any) ([]map[string]any, error) {
	f.mu.Lock()
	f.queries = append(f.queries, stmt)
	f.mu.Unlock()
	if !f.reachable {
		return nil, fmt.Errorf("connecting to 127.0.0.9:9042: %w", ErrUnreachable)
	}
	switch {
	case strings.Contains(stmt, "bootstrapped"):
		return []map[string]any{{"bootstrapped": f.bootstrapped}}, nil
	case strings.Contains(stmt, "release_version"):
		return []map[string]any{{"release_version": f.version}}, nil
	case strings.Contains(stmt, "system_views.snapshots"):
		return f.snapshots, nil
	case strings.Contains(stmt, "FROM system_auth.roles"):
		return f.roles, nil
	}
	return nil, nil
}

func (f *fakeNode) Endpoints(context.Context) ([]map[string]string, error) {
	if !f.reachable {
		return nil, ErrUnreachable
	}
	return f.endpoints, nil
}

func (f *fakeNode) wait(ctx context.Context) error {
	if f.block == nil {
		return nil
	}
	select {
	case <-f.block:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Nodetool records the command and answers as nodetool would: decommission and cleanup
// wait for block, reloadseeds prints the seeds.
func (f *fakeNode) Nodetool(ctx context.Context, args ...string) (string, error) {
	f.record("nodetool %s", strings.Join(args, " "))
	switch args[0] {
	case "decommission", "cleanup":
		if err := f.wait(ctx); err != nil {
			return "", err
		}
	case "reloadseeds":
		if !f.reachable {
			return "", ErrUnreachable
		}
		out := "Updated seed node IP list, excluding the current node's IP:"
		for _, s := range f.seeds {
			out += " /" + s + ":7000"
		}
		return out + "\n", nil
	}
	return "", f.opErr
}

var errBoom = errors.New("nodetool: boom")
