package mgmtapi

import (
	"context"
	"regexp"
	"strconv"
)

// What the real agent asks of StorageService, as the nodetool commands that ask the same of a
// played node over JMX. Each route builds its command here, so a LocalNode and a
// ContainerNode need only run nodetool, and the server's tests see the exact command.

func drain(ctx context.Context, n Node) error {
	_, err := n.Nodetool(ctx, "drain")
	return err
}

// decommission leaves the ring; the JVM keeps running, as a real one does.
func decommission(ctx context.Context, n Node, force bool) error {
	args := []string{"decommission"}
	if force {
		args = append(args, "--force")
	}
	_, err := n.Nodetool(ctx, args...)
	return err
}

// cleanup drops data the node no longer owns; without a keyspace nodetool cleans every
// non-local one, which is what NON_LOCAL_STRATEGY asks.
func cleanup(ctx context.Context, n Node, keyspace string, tables []string, jobs int) error {
	args := []string{"cleanup", "--jobs", strconv.Itoa(jobs)}
	if keyspace != NonLocalStrategy {
		args = append(append(args, "--", keyspace), tables...)
	}
	_, err := n.Nodetool(ctx, args...)
	return err
}

var seedRE = regexp.MustCompile(`[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+`)

// reloadSeeds reloads the seed list and returns the addresses nodetool prints ("Updated seed
// node IP list, excluding the current node's IP: /127.0.0.1:7000").
func reloadSeeds(ctx context.Context, n Node) ([]string, error) {
	out, err := n.Nodetool(ctx, "reloadseeds")
	if err != nil {
		return nil, err
	}
	return seedsFrom(out), nil
}

func seedsFrom(nodetoolOutput string) []string { return seedRE.FindAllString(nodetoolOutput, -1) }

// clearSnapshotsOf deletes snapshots, once per name (nodetool clearsnapshot takes one -t):
// no names means all, no keyspaces every keyspace.
func clearSnapshotsOf(ctx context.Context, n Node, names, keyspaces []string) error {
	tags := [][]string{{"--all"}}
	if len(names) > 0 {
		tags = nil
		for _, name := range names {
			tags = append(tags, []string{"-t", name})
		}
	}
	for _, tag := range tags {
		args := append(append([]string{"clearsnapshot"}, tag...), "--")
		if _, err := n.Nodetool(ctx, append(args, keyspaces...)...); err != nil {
			return err
		}
	}
	return nil
}

// allKeyspaces is the keyspace name the real flush and compact take for every keyspace
// (TableOpsResources.java: a blank keyspace_name becomes "ALL"; NodeOpsProvider.java then
// runs the operation on each of StorageService's keyspaces), as nodetool does when it is
// given none.
const allKeyspaces = "ALL"

// flush writes the memtables of keyspace's tables (all when none) to SSTables
// (StorageService.forceKeyspaceFlush).
func flush(ctx context.Context, n Node, keyspace string, tables []string) error {
	_, err := n.Nodetool(ctx, append([]string{"flush", "--"}, keyspaceArgs(keyspace, tables)...)...)
	return err
}

// compaction is what a compact request asks for once the server checked it.
type compaction struct {
	keyspace         string
	tables           []string
	splitOutput      bool
	startToken       string
	endToken         string
	userDefinedFiles []string // set: a user-defined compaction of these SSTables
}

// compact runs a major compaction of keyspace's tables (StorageService.forceKeyspaceCompaction),
// over a token range (forceKeyspaceCompactionForTokenRange), or of the SSTables named
// (CompactionManager.forceUserDefinedCompaction).
func compact(ctx context.Context, n Node, c compaction) error {
	args := []string{"compact"}
	switch {
	case len(c.userDefinedFiles) > 0:
		args = append(append(args, "--user-defined", "--"), c.userDefinedFiles...)
	case c.startToken != "" || c.endToken != "":
		args = append(args, "--start-token", c.startToken, "--end-token", c.endToken, "--")
		args = append(args, keyspaceArgs(c.keyspace, c.tables)...)
	default:
		if c.splitOutput {
			args = append(args, "--split-output")
		}
		args = append(append(args, "--"), keyspaceArgs(c.keyspace, c.tables)...)
	}
	_, err := n.Nodetool(ctx, args...)
	return err
}

// keyspaceArgs are nodetool's trailing keyspace and tables: none for every keyspace.
func keyspaceArgs(keyspace string, tables []string) []string {
	if keyspace == allKeyspaces {
		return nil
	}
	return append([]string{keyspace}, tables...)
}
