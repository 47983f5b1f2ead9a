package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindWriterBinary(t *testing.T) {
	dir := t.TempDir()
	touch := func(path string, mode os.FileMode) string {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bin := filepath.Join(dir, "bin")
	self := touch(filepath.Join(bin, "cassbench"), 0o755)
	beside := touch(filepath.Join(bin, writerBinaryName), 0o755)
	// bin/kubectl-cassbench links to bin/cassbench as make build does; a link elsewhere
	// still finds the writer beside the binary it names.
	link := filepath.Join(dir, "elsewhere", "kubectl-cassbench")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	lone := touch(filepath.Join(dir, "lone", "cassbench"), 0o755)
	touch(filepath.Join(dir, "plain", writerBinaryName), 0o644)
	plain := touch(filepath.Join(dir, "plain", "cassbench"), 0o755)
	onPath := func(string) (string, error) { return "/opt/tools/cassbench-writer", nil }
	notOnPath := func(name string) (string, error) {
		return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	at := func(p string) func() (string, error) { return func() (string, error) { return p, nil } }
	tests := map[string]struct {
		self     func() (string, error)
		lookPath func(string) (string, error)
		want     string
		err      string
	}{
		"beside this binary":             {self: at(self), lookPath: onPath, want: beside},
		"beside the binary a link names": {self: at(link), lookPath: notOnPath, want: beside},
		"on PATH":                        {self: at(lone), lookPath: onPath, want: "/opt/tools/cassbench-writer"},
		"beside but not executable":      {self: at(plain), lookPath: onPath, want: "/opt/tools/cassbench-writer"},
		"this binary unknown":            {self: func() (string, error) { return "", errors.New("no /proc") }, lookPath: onPath, want: "/opt/tools/cassbench-writer"},
		"nowhere": {self: at(lone), lookPath: notOnPath,
			err: "no cassbench-writer, the writer binary the processes run, in " + filepath.Dir(lone) + " or on PATH"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := findWriterBinary(tc.self, tc.lookPath)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "make build puts both in bin/") {
					t.Fatalf("err = %v, want one saying %q and how to get it", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("findWriterBinary = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
