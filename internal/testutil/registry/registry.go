// Package registry runs the CNCF distribution registry (built by `make release-tools` from its
// Go module) on 127.0.0.1 for tests and the local environment: charts and images are pushed to
// it and pulled back as from any OCI registry, with nothing leaving the machine.
package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Registry is a running registry.
type Registry struct {
	// Addr is its host:port on 127.0.0.1, plain HTTP.
	Addr string
	cmd  *exec.Cmd
	log  *os.File
	done chan error
}

// Start starts binary (distribution's `registry`) storing under dir, on a free port of
// 127.0.0.1, and returns once it answers /v2/.
func Start(ctx context.Context, binary, dir string) (*Registry, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a free port: %w", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	config := fmt.Sprintf(`version: 0.1
log: {level: warn, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: %q}}
http: {addr: %q}
`, filepath.Join(dir, "data"), addr)
	file := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
		return nil, fmt.Errorf("writing the registry's configuration: %w", err)
	}
	log, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		return nil, fmt.Errorf("creating the registry's log: %w", err)
	}
	cmd := exec.Command(binary, "serve", file)
	// No traces leave the machine: the registry exports OpenTelemetry spans by default.
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	r := &Registry{Addr: addr, cmd: cmd, log: log, done: make(chan error, 1)}
	go func() { r.done <- cmd.Wait() }()
	if err := r.waitReady(ctx); err != nil {
		r.Stop()
		out, _ := os.ReadFile(log.Name())
		return nil, fmt.Errorf("%w; its log:\n%s", err, out)
	}
	return r, nil
}

func (r *Registry) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.Addr+"/v2/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/v2/ answered %s", resp.Status)
		}
		select {
		case exitErr := <-r.done:
			r.done <- exitErr
			return fmt.Errorf("the registry exited before it served: %w", exitErr)
		case <-ctx.Done():
			return fmt.Errorf("the registry on %s did not answer /v2/: %w", r.Addr, errors.Join(err, ctx.Err()))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Log is the path of the registry's log.
func (r *Registry) Log() string { return r.log.Name() }

// Stop kills the registry and waits for it.
func (r *Registry) Stop() {
	_ = r.cmd.Process.Kill()
	err := <-r.done
	r.done <- err // a second Stop finds it too
	_ = r.log.Close()
}
