package kube

import "sync"

// WarningRecorder collects the warnings the apiserver sends (deprecations, PodSecurity
// violations in warn mode), for tests that treat a warning as a failure. Set it as a
// rest.Config's WarningHandler.
type WarningRecorder struct {
	mu       sync.Mutex
	messages []string
}

// HandleWarningHeader records one warning.
func (w *WarningRecorder) HandleWarningHeader(_ int, _ string, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.messages = append(w.messages, message)
}

// All returns the warnings so far.
func (w *WarningRecorder) All() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.messages...)
}
