package localcassandra

import (
	"os/exec"
	"testing"
	"time"
)

// A node this call started is alive while its process runs, whatever /proc says of its
// command line. Right after exec, until the kernel has laid out the new program's arguments,
// the command line reads empty, and Running, which knows a node by it, takes the node for gone:
// node 2 "exited during startup" in CI without a line of output, stopped by the very start
// that had launched it.
func TestStartedNodeIsJudgedByItsProcess(t *testing.T) {
	c := &Cluster{Layout: Layout{Dir: t.TempDir()}}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	c.watch(2, cmd)
	// No pid file and no CassandraDaemon in the command line: what Running sees of a node in
	// the instant after exec.
	if c.Running(2) {
		t.Fatal("Running found a node without a pid file")
	}
	if !c.alive(2) {
		t.Fatal("a node whose process runs was taken for gone")
	}
	_ = cmd.Process.Kill()
	deadline := time.Now().Add(5 * time.Second)
	for c.alive(2) {
		if time.Now().After(deadline) {
			t.Fatal("a node whose process was killed still counted as alive 5s later")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A node another call started is known by its pid file and command line.
	if c.alive(1) {
		t.Error("node 1, never started, counted as alive")
	}
}
