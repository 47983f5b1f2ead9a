// Package opmetrics serves the operator's own metrics: BenchmarkRuns and BenchmarkSweeps by
// phase, the queue and the lock of each datacenter, and how long finished runs held and
// restored their datacenter.
//
// Every figure is computed when Prometheus scrapes, from the objects in the manager's cache
// and the times their status records (startTime, completionTime, conditions), as kube-state-
// metrics does for built-in kinds. So the controllers carry no metrics code, and a restarted
// manager serves the same gauges at once. The two histograms are observed once per finished
// run, at the first scrape that sees it; runs that finished before the manager started are
// left out, so a restart does not count a cluster's history twice.
package opmetrics

import (
	"context"
	"sync"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/datacenter"
)

// Metric names, for the dashboard and its test.
const (
	RunsName            = "cassbench_benchmarkruns"
	SweepsName          = "cassbench_benchmarksweeps"
	QueueDepthName      = "cassbench_datacenter_queue_depth"
	LockedName          = "cassbench_datacenter_locked_seconds"
	LockHoldName        = "cassbench_datacenter_lock_hold_seconds"
	RestoreDurationName = "cassbench_datacenter_restore_duration_seconds"
)

// scrapeTimeout bounds one scrape's reads of the cache, which answer from memory.
const scrapeTimeout = 5 * time.Second

// buckets of the two histograms, in seconds: a restore takes seconds to an hour (a scale-down
// of many nodes), a hold minutes to a day.
var buckets = []float64{5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600, 86400}

// Collector reads the cache at every scrape. One is registered per process (the registry is
// controller-runtime's global one, which the manager's metrics endpoint serves); the manager
// that starts last points it at its cache with Use.
type Collector struct {
	mu      sync.Mutex
	reader  client.Reader
	clock   clock.PassiveClock
	started time.Time
	// observed are the finished runs already in the histograms.
	observed map[types.UID]bool

	runs, sweeps, queue, locked *prometheus.Desc
	hold, restore               prometheus.Histogram
}

// New builds a collector that reads nothing until Use is called.
func New(c clock.PassiveClock) *Collector {
	if c == nil {
		c = clock.RealClock{}
	}
	return &Collector{
		clock:    c,
		started:  c.Now(),
		observed: map[types.UID]bool{},
		runs: prometheus.NewDesc(RunsName,
			"BenchmarkRuns by namespace and phase (status.phase; Pending until the controller first writes it).",
			[]string{"namespace", "phase"}, nil),
		sweeps: prometheus.NewDesc(SweepsName,
			"BenchmarkSweeps by namespace and phase (status.phase; Pending until the controller first writes it).",
			[]string{"namespace", "phase"}, nil),
		queue: prometheus.NewDesc(QueueDepthName,
			"BenchmarkRuns waiting for a CassandraDatacenter another run or sweep holds (DatacenterReady reason DatacenterBusy).",
			[]string{"namespace", "datacenter"}, nil),
		locked: prometheus.NewDesc(LockedName,
			"How long the holder of a CassandraDatacenter's cassbench.io/locked-by lock has held it: since the run's status.startTime, or the sweep's DatacenterLocked condition.",
			[]string{"namespace", "datacenter", "holder_kind"}, nil),
		hold: prometheus.NewHistogram(prometheus.HistogramOpts{Name: LockHoldName,
			Help:    "How long finished BenchmarkRuns held their datacenter: status.startTime to status.completionTime (taken to given back).",
			Buckets: buckets}),
		restore: prometheus.NewHistogram(prometheus.HistogramOpts{Name: RestoreDurationName,
			Help:    "How long finished BenchmarkRuns took to give their datacenter back: from the end of the stage that ended the run to status.completionTime.",
			Buckets: buckets}),
	}
}

// Use points the collector at a manager's cache and clock (nil: the real one); a nil reader
// stops it reading.
func (c *Collector) Use(r client.Reader, clk clock.PassiveClock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reader = r
	if clk == nil {
		clk = clock.RealClock{}
	}
	c.clock = clk
}

// Runnable points the collector at a manager's cache while the manager runs. Every replica
// serves the figures, leader or not: they describe the cluster, not this replica's work.
func (c *Collector) Runnable(r client.Reader, clk clock.PassiveClock) manager.Runnable {
	return runnable{c: c, reader: r, clock: clk}
}

type runnable struct {
	c      *Collector
	reader client.Reader
	clock  clock.PassiveClock
}

func (r runnable) Start(ctx context.Context) error {
	r.c.Use(r.reader, r.clock)
	<-ctx.Done()
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	// A manager started after this one keeps its own cache.
	if r.c.reader == r.reader {
		r.c.reader = nil
	}
	return nil
}

func (runnable) NeedLeaderElection() bool { return false }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.runs, c.sweeps, c.queue, c.locked} {
		ch <- d
	}
	c.hold.Describe(ch)
	c.restore.Describe(ch)
}

// Collect implements prometheus.Collector. A read that fails leaves its metrics out of this
// scrape (Prometheus then marks them stale) rather than serving a partial count as the truth.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.hold.Collect(ch)
	defer c.restore.Collect(ch)
	if c.reader == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	now := c.clock.Now()
	var runs cbv1.BenchmarkRunList
	if err := c.reader.List(ctx, &runs); err == nil {
		c.collectRuns(ch, runs.Items)
	}
	var sweeps cbv1.BenchmarkSweepList
	if err := c.reader.List(ctx, &sweeps); err == nil {
		for _, s := range byPhase(sweepsByPhase(sweeps.Items), sweepPhases) {
			ch <- prometheus.MustNewConstMetric(c.sweeps, prometheus.GaugeValue, float64(s.n), s.namespace, string(s.phase))
		}
	}
	var dcs cassdcapi.CassandraDatacenterList
	if err := c.reader.List(ctx, &dcs); err == nil {
		c.collectDatacenters(ch, now, dcs.Items, runs.Items, sweeps.Items)
	}
}

func (c *Collector) collectRuns(ch chan<- prometheus.Metric, runs []cbv1.BenchmarkRun) {
	phases := make([]namespacedPhase, 0, len(runs))
	for i := range runs {
		phases = append(phases, namespacedPhase{runs[i].Namespace, runs[i].Status.Phase})
	}
	for _, p := range byPhase(phases, runPhases) {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.GaugeValue, float64(p.n), p.namespace, string(p.phase))
	}
	for i := range runs {
		run := &runs[i]
		if c.observed[run.UID] {
			continue
		}
		hold, restore, ok := Durations(run)
		if !ok || run.Status.CompletionTime.Time.Before(c.started) {
			continue
		}
		c.observed[run.UID] = true
		c.hold.Observe(hold.Seconds())
		c.restore.Observe(restore.Seconds())
	}
	c.forget(runs)
}

// forget drops deleted runs from the set of observed ones, so that it does not grow forever.
func (c *Collector) forget(runs []cbv1.BenchmarkRun) {
	live := make(map[types.UID]bool, len(runs))
	for i := range runs {
		live[runs[i].UID] = true
	}
	for uid := range c.observed {
		if !live[uid] {
			delete(c.observed, uid)
		}
	}
}

func (c *Collector) collectDatacenters(ch chan<- prometheus.Metric, now time.Time, dcs []cassdcapi.CassandraDatacenter, runs []cbv1.BenchmarkRun, sweeps []cbv1.BenchmarkSweep) {
	queued := QueueDepths(runs)
	for i := range dcs {
		key := types.NamespacedName{Namespace: dcs[i].Namespace, Name: dcs[i].Name}
		ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(queued[key]), key.Namespace, key.Name)
		delete(queued, key)
		holder, ok := datacenter.LockHolder(&dcs[i])
		if !ok {
			continue
		}
		if since, found := heldSince(holder, runs, sweeps); found {
			kind := "BenchmarkRun"
			if holder.Sweep {
				kind = "BenchmarkSweep"
			}
			ch <- prometheus.MustNewConstMetric(c.locked, prometheus.GaugeValue, now.Sub(since).Seconds(), key.Namespace, key.Name, kind)
		}
	}
	// Runs may wait for a datacenter the cache has not seen (deleted, or not yet created).
	for key, n := range queued {
		ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(n), key.Namespace, key.Name)
	}
}

// QueueDepths counts, per datacenter, the unfinished runs that wait for another holder to
// give it back.
func QueueDepths(runs []cbv1.BenchmarkRun) map[types.NamespacedName]int {
	out := map[types.NamespacedName]int{}
	for i := range runs {
		run := &runs[i]
		if meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionSucceeded) != nil {
			continue
		}
		if c := meta.FindStatusCondition(run.Status.Conditions, cbv1.ConditionDatacenterReady); c != nil && c.Reason == cbv1.ReasonDatacenterBusy {
			out[waitsFor(run)]++
		}
	}
	return out
}

// waitsFor is the datacenter a busy run waits for: its one, or the first of several (in the
// order they are taken) it has not recorded yet.
func waitsFor(run *cbv1.BenchmarkRun) types.NamespacedName {
	keys := datacenter.Keys(run)
	for _, k := range keys {
		recorded := false
		for _, rec := range run.Status.Datacenters {
			recorded = recorded || (rec.Name == k.Name && rec.Namespace == k.Namespace)
		}
		if !recorded {
			return k
		}
	}
	return keys[len(keys)-1]
}

// heldSince is when the lock's holder took the datacenter, if the cache has the holder and
// it recorded the time.
func heldSince(h datacenter.Holder, runs []cbv1.BenchmarkRun, sweeps []cbv1.BenchmarkSweep) (time.Time, bool) {
	if h.Sweep {
		for i := range sweeps {
			s := &sweeps[i]
			if s.Namespace == h.Namespace && s.Name == h.Name {
				if c := meta.FindStatusCondition(s.Status.Conditions, cbv1.ConditionDatacenterLocked); c != nil && c.Status == metav1.ConditionTrue {
					return c.LastTransitionTime.Time, true
				}
			}
		}
		return time.Time{}, false
	}
	for i := range runs {
		r := &runs[i]
		if r.Namespace == h.Namespace && r.Name == h.Name && r.Status.StartTime != nil {
			return r.Status.StartTime.Time, true
		}
	}
	return time.Time{}, false
}
