package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/cli"
	"github.com/cassbench/cassbench/internal/replag"
	"github.com/cassbench/cassbench/internal/report"
	"github.com/cassbench/cassbench/internal/workload"
	"github.com/cassbench/cassbench/internal/writer"
)

// lagFlags ask a local run to measure replication lag: the writers write in their local
// datacenter (--datacenter) and an observer reads a sampled share of their acknowledged
// inserts back at LOCAL_ONE in another (--observe-datacenter).
type lagFlags struct {
	observe     string
	sample      float64
	limit, poll time.Duration
}

func (l *lagFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.observe, "observe-datacenter", "", "measure replication lag to this datacenter: read a sampled share of the writers' acknowledged inserts back there at LOCAL_ONE (needs --datacenter, the writers' own)")
	fs.Float64Var(&l.sample, "lag-sample", 0.01, "with --observe-datacenter: the share of acknowledged inserts read back, in (0, 1]")
	fs.DurationVar(&l.limit, "lag-limit", 30*time.Second, "with --observe-datacenter: a key not seen this long after its acknowledgement is counted as censored, not as a lag")
	fs.DurationVar(&l.poll, "lag-poll", 10*time.Millisecond, "with --observe-datacenter: the pause between two reads of one key (part of the stated bound)")
}

// check refuses what cannot measure lag, naming the option, and a spec across datacenters,
// whose placement a local run does not follow.
func (l *lagFlags) check(spec *cbv1.BenchmarkRunSpec, local string, processes bool) error {
	switch {
	case len(spec.Datacenters) > 0:
		return errors.New("spec.datacenters places writers and observers per datacenter, which cassbench run does not do: " +
			"name one datacenter in spec.datacenterRef, the writers' with --datacenter and the observers' with --observe-datacenter")
	case l.observe == "":
		return nil
	case local == "":
		return errors.New("--observe-datacenter needs --datacenter, the writers' local datacenter")
	case local == l.observe:
		return fmt.Errorf("--observe-datacenter %s is the writers' own --datacenter: lag is measured to another one", l.observe)
	case processes:
		return errors.New("--observe-datacenter needs in-process writers: it cannot be used with --processes")
	case !(l.sample > 0 && l.sample <= 1):
		return fmt.Errorf("--lag-sample %g is not in (0, 1]", l.sample)
	case l.limit <= 0:
		return fmt.Errorf("--lag-limit %s must be positive", l.limit)
	case l.poll <= 0:
		return fmt.Errorf("--lag-poll %s must be positive", l.poll)
	case spec.Workload.BatchSize > 1:
		return fmt.Errorf("--observe-datacenter reads back single-row inserts, but workload.batchSize is %d", spec.Workload.BatchSize)
	case spec.Workload.WriteRatio <= 0:
		return errors.New("--observe-datacenter reads back inserts, but workload.writeRatio is 0")
	}
	return nil
}

// lagRun is a running observer and the tap the writers feed it through.
type lagRun struct {
	flags lagFlags
	tap   *replag.Tap
}

// startLag connects to the observed datacenter and starts the observer there; nil when no
// lag was asked for. The datacenter must be reachable now: the observer's session holds to
// its hosts alone (replag.Connect).
func startLag(ctx context.Context, l lagFlags, spec *cbv1.BenchmarkRunSpec, conn *cli.ConnFlags, csv *workload.CSV) (*lagRun, error) {
	if l.observe == "" {
		return nil, nil
	}
	o := conn.Options()
	o.LocalDatacenter = l.observe
	s, err := replag.Connect(o)
	if err != nil {
		return nil, fmt.Errorf("--observe-datacenter: %w", err)
	}
	return startLagOn(ctx, l, spec, csv, s)
}

// startLagOn starts the observer on s, a session of the observed datacenter; finish (or a
// failure here) closes s.
func startLagOn(ctx context.Context, l lagFlags, spec *cbv1.BenchmarkRunSpec, csv *workload.CSV, s *gocql.Session) (*lagRun, error) {
	gen, err := workload.NewGeneratorWith(spec, 0, 1, workload.Options{CSV: csv})
	if err != nil {
		s.Close()
		return nil, err
	}
	tap, err := replag.StartTap(ctx, s, gen.RowKeyCQL(), l.sample, l.poll, l.limit, 4)
	if err != nil {
		return nil, fmt.Errorf("--observe-datacenter %s: %w", l.observe, err)
	}
	return &lagRun{flags: l, tap: tap}, nil
}

// Tap is what the writers feed; nil without an observer.
func (r *lagRun) Tap() *writer.LagTap {
	if r == nil {
		return nil
	}
	return r.tap.Writer
}

// finish waits for the keys still pending (at most the limit) and returns what was observed.
func (r *lagRun) finish(ctx context.Context) replag.Result {
	if r == nil {
		return replag.Result{}
	}
	return r.tap.Finish(ctx)
}

// results is what the observer saw as the run's results keep it; nil when no lag was asked
// for.
func (r *lagRun) results(res replag.Result) *cbv1.ReplicationLagResults {
	if r == nil {
		return nil
	}
	return res.Results(r.flags.observe, r.flags.sample, r.flags.limit)
}

// reportLag prints the replication lag on stderr beside JSON and CSV, which carry it in
// their results as cassbench results writes them; the table prints it itself. It returns the
// exit code.
func reportLag(lag *cbv1.ReplicationLagResults, format report.Format, code int) int {
	if lag == nil || format == report.Table {
		return code
	}
	if err := report.LagText(os.Stderr, lag); err != nil {
		fmt.Fprintf(os.Stderr, "cassbench run: %v\n", err)
		return max(code, 1)
	}
	return code
}
