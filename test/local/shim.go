package local

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// shimEnv carries a container's launch spec to the shim: the pod runner starts its own
// executable in a new mount namespace with this variable set, and the shim arranges the
// container's mounts and user before it execs the container's command. A shim is needed
// because nothing can run between fork and exec in Go.
const shimEnv = "CASSBENCH_LOCAL_POD_SHIM"

// shimSpec is one container as the shim starts it.
type shimSpec struct {
	// Mounts are bind mounts of per-pod files and directories over container paths.
	Mounts []bindMount `json:"mounts"`
	// ReadOnlyRoot makes / read-only in the namespace (readOnlyRootFilesystem); the bind
	// mounts stay writable as volumes do.
	ReadOnlyRoot bool     `json:"readOnlyRoot,omitempty"`
	UID          *int64   `json:"uid,omitempty"`
	GID          *int64   `json:"gid,omitempty"`
	Path         string   `json:"path"`
	Args         []string `json:"args"`
	Env          []string `json:"env"`
	Dir          string   `json:"dir,omitempty"`
}

type bindMount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// RunShimIfRequested turns this process into a container when the pod runner started it as
// one; otherwise it returns at once. Call it first in main and TestMain.
func RunShimIfRequested() {
	v := os.Getenv(shimEnv)
	if v == "" {
		return
	}
	var spec shimSpec
	if err := json.Unmarshal([]byte(v), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "local pod runner: reading the container spec: %v\n", err)
		os.Exit(128)
	}
	err := execContainer(spec)
	// Exit codes as a runtime that cannot start the command gives them.
	fmt.Fprintf(os.Stderr, "local pod runner: starting the container: %v\n", err)
	os.Exit(128)
}

// execContainer runs in the fresh mount namespace (the runner unshared it, and Go made the
// whole tree private), so nothing done here is seen outside the pod.
func execContainer(spec shimSpec) error {
	// Exec replaces the process from this thread; the parent-death signal set below belongs
	// to it.
	runtime.LockOSThread()
	for _, m := range spec.Mounts {
		if err := syscall.Mount(m.Source, m.Target, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mounting %s on %s: %w", m.Source, m.Target, err)
		}
		if m.ReadOnly {
			if err := syscall.Mount("", m.Target, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
				return fmt.Errorf("making %s read-only: %w", m.Target, err)
			}
		}
	}
	if spec.ReadOnlyRoot {
		if err := syscall.Mount("", "/", "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("making the root file system read-only: %w", err)
		}
	}
	if spec.GID != nil || spec.UID != nil {
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("dropping supplementary groups: %w", err)
		}
	}
	if spec.GID != nil {
		if err := syscall.Setgid(int(*spec.GID)); err != nil {
			return fmt.Errorf("setting group %d: %w", *spec.GID, err)
		}
	}
	if spec.UID != nil {
		if err := syscall.Setuid(int(*spec.UID)); err != nil {
			return fmt.Errorf("setting user %d: %w", *spec.UID, err)
		}
	}
	// Changing credentials cleared the parent-death signal; the container must still die
	// with the runner.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return fmt.Errorf("setting the parent-death signal: %w", errno)
	}
	dir := spec.Dir
	if dir == "" {
		dir = "/"
	}
	if err := syscall.Chdir(dir); err != nil {
		return fmt.Errorf("changing to working directory %s: %w", dir, err)
	}
	return syscall.Exec(spec.Path, spec.Args, spec.Env)
}
