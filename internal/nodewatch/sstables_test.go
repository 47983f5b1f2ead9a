package nodewatch

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSplitSetting(t *testing.T) {
	for v, want := range map[string]int{"[/var/lib/cassandra/data]": 1, "[/a, /b]": 2, "/a,/b": 2, "": 0, "[]": 0} {
		if got := len(splitSetting(v)); got != want {
			t.Errorf("splitSetting(%q) has %d directories, want %d", v, got, want)
		}
	}
}

// Every Data.db counts, except a transaction's outputs while it has not committed; a
// committed or aborted log adds nothing to take away. Snapshots and backups are directories.
func TestCountSSTables(t *testing.T) {
	dir := t.TempDir()
	touch := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"nb-1-big", "nb-2-big", "nb-3-big", "nb-4-big", "nb-5-big"} {
		touch(n+"-Data.db", "")
		touch(n+"-Index.db", "")
	}
	touch("nb_txn_compaction_a.log", "ADD:["+filepath.Join(dir, "nb-5-big")+",0,8][123]\nREMOVE:["+filepath.Join(dir, "nb-1-big")+",1,8][456]\n")
	touch("nb_txn_flush_b.log", "ADD:["+filepath.Join(dir, "nb-4-big")+",0,8][1]\nCOMMIT:[,0,0][2]\n")
	if err := os.MkdirAll(filepath.Join(dir, "snapshots", "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, ok := countSSTables([]string{dir, filepath.Join(dir, "missing")})
	if !ok || n != 4 {
		t.Errorf("countSSTables = %d, %v; want 4 (nb-5 is still being written)", n, ok)
	}
	if _, ok := countSSTables([]string{filepath.Join(dir, "missing")}); ok {
		t.Error("a missing directory read as a count")
	}
}
