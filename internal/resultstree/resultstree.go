// Package resultstree reads the results files (`cassbench results -o json`) kept in a
// directory tree, as an experiment repository keeps them beside their specs, into the runs of
// a history, with the git commit that added each. It is apart from internal/history so that
// the manager, which judges runs it reads from the cluster, links no file or report code.
package resultstree

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/history"
	"github.com/cassbench/cassbench/internal/report"
)

// Loaded is what Load found.
type Loaded struct {
	Runs []history.Run
	// Skipped says, per file, why it is not in any series: a JSON file that is no results
	// file, a sweep's table, a run that failed or has no results.
	Skipped []string
}

// Load reads every results file (`cassbench results -o json`) under root, skipping
// hidden directories, and when root is in a git repository finds the commit that added each.
func Load(root string) (Loaded, error) {
	var out Loaded
	info, err := os.Stat(root)
	if err != nil {
		return out, fmt.Errorf("reading the history: %w", err)
	}
	if !info.IsDir() {
		return out, fmt.Errorf("%s is not a directory: give the directory that holds the results files", root)
	}
	commits := addedBy(root)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		run, why := readRun(path)
		if why != "" {
			out.Skipped = append(out.Skipped, rel+": "+why)
			return nil
		}
		r, ok := history.FromRun(run, rel, commits[filepath.ToSlash(rel)])
		if !ok {
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s: run %s did not succeed (%s)", rel, run.Name, run.Status.Phase))
			return nil
		}
		out.Runs = append(out.Runs, r)
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("reading the history under %s: %w", root, err)
	}
	return out, nil
}

// readRun reads a results file of a run; why says why a file is not one.
func readRun(path string) (*cbv1.BenchmarkRun, string) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err.Error()
	}
	defer func() { _ = f.Close() }() // read only
	obj, err := report.Read(f)
	if err != nil {
		return nil, err.Error()
	}
	run, ok := obj.(*cbv1.BenchmarkRun)
	if !ok {
		return nil, "a BenchmarkSweep's table: its runs' own files make the series"
	}
	return run, ""
}

// addedBy maps each file under root (as a slash-separated path relative to root) to the
// commit that last added it, when root is in a git repository; else it is empty.
func addedBy(root string) map[string]string {
	out := map[string]string{}
	if _, err := exec.LookPath("git"); err != nil {
		return out
	}
	// Newest first: the first commit seen adding a path is the one that added it last.
	cmd := exec.Command("git", "-C", root, "log", "--diff-filter=A", "--relative", "--name-only", "--format=%x00%H", "--", ".")
	b, err := cmd.Output()
	if err != nil {
		return out // not a git repository, or no commit yet
	}
	commit := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if c, ok := strings.CutPrefix(line, "\x00"); ok {
			commit = c
			continue
		}
		if line != "" && commit != "" {
			if _, seen := out[line]; !seen {
				out[line] = commit
			}
		}
	}
	return out
}
