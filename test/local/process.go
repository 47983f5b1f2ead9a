package local

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a long-running child (kube-controller-manager, the manager) whose output goes to
// a log file that survives restarts.
type Process struct {
	Name string
	Path string
	Args []string
	Env  []string
	Log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start starts the process; its output is appended to the log file.
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !p.exited() {
		return fmt.Errorf("%s is already running (pid %d)", p.Name, p.cmd.Process.Pid)
	}
	log, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("opening the log of %s: %w", p.Name, err)
	}
	_, _ = fmt.Fprintf(log, "=== %s starting %s %s\n", time.Now().Format(time.RFC3339Nano), p.Path, strings.Join(p.Args, " "))
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Env = p.Env
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: a Ctrl-C in the terminal reaches local-cluster, which stops the
	// children in order, instead of every child at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	p.cmd, p.done, p.err = cmd, make(chan struct{}), nil
	done := p.done
	go func() {
		err := cmd.Wait()
		_ = log.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

func (p *Process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Exited tells whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return true, nil
	}
	if !p.exited() {
		return false, nil
	}
	return true, p.err
}

// PID is the process id, or 0 when it does not run.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.exited() {
		return 0
	}
	return p.cmd.Process.Pid
}

// Kill sends SIGKILL and waits for the exit.
func (p *Process) Kill() {
	p.signalAndWait(syscall.SIGKILL, time.Minute)
}

// Stop sends SIGTERM, waits up to grace, then kills.
func (p *Process) Stop(grace time.Duration) {
	if !p.signalAndWait(syscall.SIGTERM, grace) {
		p.Kill()
	}
}

func (p *Process) signalAndWait(sig syscall.Signal, wait time.Duration) bool {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return true
	}
	select {
	case <-done:
		return true
	default:
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}

// WaitForLog waits until a line of the log (since the last start) contains want, failing
// early when the process exits.
func (p *Process) WaitForLog(want string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if lines, err := p.linesSinceStart(); err == nil {
			for _, l := range lines {
				if strings.Contains(l, want) {
					return nil
				}
			}
		}
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before logging %q (%w); its log:\n%s", p.Name, want, err, p.Tail(40))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not log %q within %s; its log:\n%s", p.Name, want, timeout, p.Tail(40))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// linesSinceStart returns the log lines written since the last start marker.
func (p *Process) linesSinceStart() ([]string, error) {
	f, err := os.Open(p.Log)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "=== ") && strings.Contains(sc.Text(), " starting ") {
			lines = lines[:0]
			continue
		}
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// Tail returns the last n lines of the log.
func (p *Process) Tail(n int) string { return tailFile(p.Log, n) }

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "(no log)"
		}
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
