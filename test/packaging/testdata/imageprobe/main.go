// Command imageprobe reports, as JSON, what a process started in cassbench's image may do:
// its ids, its capabilities and no_new_privs as the kernel shows them in /proc/self/status,
// and what came of writing to the image's files and to /tmp. The image test copies it into the
// image's /tmp (a tmpfs, as a pod's emptyDir) and starts it as it starts the binaries.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

func main() {
	report := map[string]any{
		"uid": os.Getuid(), "euid": os.Geteuid(), "gid": os.Getgid(), "egid": os.Getegid(),
	}
	groups, err := os.Getgroups()
	if err != nil {
		report["groupsError"] = err.Error()
	}
	report["groups"] = groups
	status := map[string]string{}
	if f, err := os.Open("/proc/self/status"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok {
				status[k] = strings.TrimSpace(v)
			}
		}
		_ = f.Close()
	} else {
		report["statusError"] = err.Error()
	}
	report["status"] = status
	writes := map[string]string{}
	for _, p := range []string{"/probe-write", "/home/nonroot/probe-write", "/etc/passwd", "/manager", "/tmp/probe-write"} {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
		if err == nil {
			err = f.Close()
		}
		writes[p] = "ok"
		if err != nil {
			writes[p] = err.Error()
		}
	}
	report["writes"] = writes
	_ = json.NewEncoder(os.Stdout).Encode(report)
}
