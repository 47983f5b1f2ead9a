// Package setup prepares a cluster for a run: it checks that every node is up and runs the
// cassandra-yaml settings the run asked for, then creates the keyspace, table and start
// barrier. Its report goes to the controller through the pod's termination message.
package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cql"
	"github.com/cassbench/cassbench/internal/summary"
	"github.com/cassbench/cassbench/internal/workload"
	"github.com/cassbench/cassbench/internal/writer"
)

// Config is one setup.
type Config struct {
	Spec *cbv1.BenchmarkRunSpec
	Conn cql.Options
	// Datacenter names the local datacenter for NetworkTopologyStrategy.
	Datacenter string
	// ExpectNodes is how many nodes must be up; 0 takes whatever is there.
	ExpectNodes int32
	// NodeWait bounds the wait for them.
	NodeWait time.Duration
	// Log gets one line per step.
	Log io.Writer
	// Preflight only checks that every requested setting exists on the nodes up now, before
	// the datacenter is changed: values are not compared and no schema is created. A typo
	// caught here never reaches cassandra.yaml, where it would stop the node from starting.
	Preflight bool
	// AllowDrop lists keyspace names and patterns (bench_*) a recreating run may drop even
	// when cassbench did not create them; AllowDropWhere says, in a refusal, where to list
	// one (the datacenter's annotation by default, a flag for `cassbench run`).
	AllowDrop      []string
	AllowDropWhere string
	// Snapshots clears the snapshots a recreating drop leaves; nil only lists them and says how
	// to clear them.
	Snapshots SnapshotClearer
}

// ddlTimeout is generous: dropping a large keyspace snapshots and deletes its files.
const ddlTimeout = 2 * time.Minute

// Run sets the cluster up. The report is always returned; on failure its Error says why.
func Run(ctx context.Context, cfg Config) (*summary.SetupReport, error) {
	report := &summary.SetupReport{}
	err := run(ctx, cfg, report)
	if err != nil {
		report.Error = err.Error()
	}
	return report, err
}

func run(ctx context.Context, cfg Config, report *summary.SetupReport) error {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	settings, jvm, schema, want, err := wanted(cfg)
	if err != nil {
		return err
	}

	conn := cfg.Conn
	conn.Keyspace = ""
	if conn.Timeout == 0 {
		conn.Timeout = ddlTimeout
	}
	// Retried as a writer's is: the setup pod may start while the nodes' service has no
	// ready pod to resolve to, or the nodes do not answer yet; for 30 s, so that a wrong
	// address still fails soon.
	s, err := writer.ConnectRetrying(ctx, conn, 30*time.Second)
	if err != nil {
		return err
	}
	defer s.Close()

	wait := cfg.NodeWait
	if wait == 0 {
		wait = 5 * time.Minute
	}
	up, err := waitForNodes(ctx, s, cfg.ExpectNodes, wait)
	if err != nil {
		return err
	}
	report.Nodes = int32(len(up))
	fmt.Fprintf(log, "setup: nodes up: %d\n", len(up))

	if err := verifyNodes(ctx, s, up, settings, jvm, report, log); err != nil {
		return err
	}
	if cfg.Preflight {
		return nil
	}
	return makeSchema(ctx, s, cfg, up, schema, want, report, log)
}

// wanted is what the run asks setup to find and make: the cassandra.yaml settings and JVM
// options every node must show (none of their values in preflight, when the datacenter does
// not run with them yet), and the schema.
func wanted(cfg Config) (settings []Setting, jvm JVMWant, schema *workload.Schema, want *workload.Want, err error) {
	var raw []byte
	if d := cfg.Spec.Datacenter; d != nil && d.Config != nil && d.Config.CassandraYaml != nil {
		raw = d.Config.CassandraYaml.Raw
	}
	settings, err = ParseSettings(raw)
	if err != nil {
		return nil, JVMWant{}, nil, nil, err
	}
	if err := CheckStartupKeys(settings); err != nil {
		return nil, JVMWant{}, nil, nil, err
	}
	if d := cfg.Spec.Datacenter; d != nil {
		if jvm, err = ParseJVM(d.Config); err != nil {
			return nil, JVMWant{}, nil, nil, err
		}
	}
	if cfg.Preflight {
		for i := range settings {
			settings[i].CheckValue = false
		}
		jvm = JVMWant{} // the JVM is checked once the datacenter runs with the new options
	}
	// Refused here, before anything else, whatever the schema builder would say: setup is
	// the one place that drops keyspaces.
	if err := checkKeyspace(cfg.Spec.Schema.Keyspace); err != nil {
		return nil, JVMWant{}, nil, nil, err
	}
	schema, err = workload.BuildSchema(cfg.Spec, cfg.Datacenter)
	if err != nil {
		return nil, JVMWant{}, nil, nil, fmt.Errorf("building schema: %w", err)
	}
	if err := checkKeyspace(schema.Keyspace); err != nil {
		return nil, JVMWant{}, nil, nil, err
	}
	want, err = workload.WantSchema(cfg.Spec, cfg.Datacenter)
	if err != nil {
		return nil, JVMWant{}, nil, nil, fmt.Errorf("building schema: %w", err)
	}
	return settings, jvm, schema, want, nil
}

// verifyNodes reads every node up and checks that it runs with the settings and JVM options
// the run asks for, recording what it found in the report.
func verifyNodes(ctx context.Context, s *gocql.Session, up []node, settings []Setting, jvm JVMWant, report *summary.SetupReport, log io.Writer) error {
	var err error
	versions := map[string]bool{}
	states := make([]nodeState, len(up))
	for i, n := range up {
		if states[i], err = readNode(ctx, s, n, len(settings) > 0 || !jvm.Empty(), !jvm.Empty()); err != nil {
			return err
		}
		versions[states[i].Version] = true
	}
	report.CassandraVersion = joinKeys(versions)
	for i, n := range up {
		if err := CheckNode(n.Addr, states[i].Version, settings, states[i].Settings); err != nil {
			return err
		}
	}
	for _, st := range settings {
		report.SettingsVerified = append(report.SettingsVerified, st.Name)
	}
	if len(settings) > 0 {
		fmt.Fprintf(log, "setup: settings verified on every node: %d\n", len(settings))
	}
	if !jvm.Empty() {
		if err := verifyJVM(up, states, jvm, settings, report); err != nil {
			return err
		}
		for _, u := range report.Unverified {
			fmt.Fprintf(log, "setup: not verified: %s\n", u)
		}
	}
	return nil
}

// makeSchema drops the keyspace when the run recreates it (clearing the snapshots the drop
// leaves, unless kept), creates what is missing of the keyspace and table, and loads the
// dataset.
func makeSchema(ctx context.Context, s *gocql.Session, cfg Config, up []node, schema *workload.Schema, want *workload.Want, report *summary.SetupReport, log io.Writer) error {
	existing, err := checkExisting(ctx, s, cfg, want)
	if err != nil {
		return err
	}

	dropping := cfg.Spec.Schema.Recreate && schema.DropKeyspace != "" && existing != nil
	// Only what the drop leaves is cleared: snapshots there before it may be someone's backup.
	var before []KeyspaceSnapshots
	clearer := cfg.Snapshots
	if cfg.Spec.Schema.KeepSnapshots {
		clearer = nil
	}
	if dropping && clearer != nil {
		if before, err = listSnapshots(ctx, s, up, schema.Keyspace); err != nil {
			fmt.Fprintf(log, "setup: warning: snapshots the drop leaves will not be cleared: listing those before it: %v\n", err)
			clearer = nil
		}
	}
	var stmts []string
	if dropping {
		stmts = append(stmts, schema.DropKeyspace)
	}
	created, err := markStatements(schema, want, writer.BarrierTableCQL(schema.Keyspace))
	if err != nil {
		return fmt.Errorf("building schema: %w", err)
	}
	stmts = append(stmts, created...)
	if cfg.Spec.Capacity != nil {
		stmts = append(stmts, writer.CapacityTablesCQL(schema.Keyspace)...)
	}
	exec := func(stmt string) error {
		if err := s.Query(stmt).ExecContext(ctx); err != nil {
			return fmt.Errorf("running %q: %w", firstLine(stmt), err)
		}
		// The next statement may go to another node, which must know this one's result
		// first (a table in a keyspace just created).
		return agree(ctx, s)
	}
	if err := runDDL(ctx, exec, stmts, dropping, log); err != nil {
		return err
	}
	fmt.Fprintf(log, "setup: keyspace %s and table %s ready\n", schema.Keyspace, schema.Table)
	if err := prepareDataset(ctx, s, cfg.Spec, schema, log); err != nil {
		return err
	}
	if dropping {
		if clearer != nil {
			after, err := listSnapshots(ctx, s, up, schema.Keyspace)
			if err == nil {
				err = clearDropped(ctx, clearer, log, schema.Keyspace, before, after)
			}
			if err != nil {
				// The drop is done and the run can go on; what is left is listed below.
				fmt.Fprintf(log, "setup: warning: %v\n", err)
			}
		}
		snaps, err := listSnapshots(ctx, s, up, schema.Keyspace)
		if err != nil {
			fmt.Fprintf(log, "setup: snapshots of keyspace %s not listed: %v\n", schema.Keyspace, err)
		}
		warnSnapshots(log, schema.Keyspace, snaps)
		report.Snapshots = len(snaps)
	}
	return nil
}

// verifyJVM checks the heap and collector on every node; a key counts as verified when every
// node showed it, and as unverified (with the reason) when some node could not.
func verifyJVM(up []node, states []nodeState, want JVMWant, settings []Setting, report *summary.SetupReport) error {
	pinned := map[string]bool{}
	for _, st := range settings {
		pinned[st.Name] = true
	}
	verifiedOn := map[string]int{}
	unread := map[Unread]int{}
	var order []string
	for i, n := range up {
		v, u, err := CheckJVM(n.Addr, want, JVMSeen{Args: states[i].JVMArgs, Settings: states[i].Settings}, pinned)
		if err != nil {
			return err
		}
		for _, k := range v {
			if verifiedOn[k] == 0 {
				order = append(order, k)
			}
			verifiedOn[k]++
		}
		for _, r := range u {
			unread[r]++
		}
	}
	for _, k := range order {
		if verifiedOn[k] == len(up) {
			report.SettingsVerified = append(report.SettingsVerified, k)
		}
	}
	for _, k := range []string{want.MaxHeapKey, want.InitialHeapKey, want.GCKey} {
		for r, count := range unread {
			if r.Key == k {
				report.Unverified = append(report.Unverified, fmt.Sprintf("%s on %d of %d nodes: %s", k, count, len(up), r.Reason))
			}
		}
	}
	return nil
}

func agree(ctx context.Context, s *gocql.Session) error {
	actx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	if err := s.AwaitSchemaAgreement(actx); err != nil {
		return fmt.Errorf("waiting for schema agreement: %w", err)
	}
	return nil
}

// checkKeyspace refuses Cassandra's own keyspaces before anything can drop one.
func checkKeyspace(ks string) error {
	if ks == "" {
		return errors.New("no keyspace to set up")
	}
	if cbv1.SystemKeyspace(ks) {
		return fmt.Errorf("keyspace %q is refused: names starting with system or dse_, and solr_admin, are Cassandra's own; choose another, e.g. cassbench", ks)
	}
	return nil
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
