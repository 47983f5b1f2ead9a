package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// writerBinaryName is the binary every writer pod runs (cmd/cassbench-writer): `cassbench
// writer` without offline admission, some 40 MiB leaner a process. cassbench run --processes
// starts it, so that a local run's writer processes cost what the pods' do.
const writerBinaryName = "cassbench-writer"

// findWriterBinary finds writerBinaryName beside this binary, where make build and the image
// put it, else on PATH. The one beside wins: it is of this build.
func findWriterBinary(self func() (string, error), lookPath func(string) (string, error)) (string, error) {
	dir := "this binary"
	if exe, err := self(); err == nil {
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		dir = filepath.Dir(exe)
		beside := filepath.Join(dir, writerBinaryName)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	path, err := lookPath(writerBinaryName)
	if err != nil {
		return "", fmt.Errorf("no %s, the writer binary the processes run, in %s or on PATH (%w): build it beside cassbench (make build puts both in bin/)",
			writerBinaryName, dir, err)
	}
	return path, nil
}
