package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/compare"
	"github.com/cassbench/cassbench/internal/numfmt"
)

//go:embed assets/page.css
var pageCSS string

//go:embed assets/page.html
var pageHTML string

type htmlPage struct {
	Title, Generated string
	Comparisons      []comparisonBlock
	Glance           []runSection
	Charts           []template.HTML
	Runs             []runSection
	Sweeps           []sweepSection
	CSS              template.CSS
}

// comparisonBlock is one run against the baseline, a verdict line per figure.
type comparisonBlock struct {
	Baseline, Name string
	Alpha          float64
	Lines          []verdictLine
}

type verdictLine struct {
	Class, Verdict, Metric, Baseline, Value, Diff, Evidence, Method string
}

type runSection struct {
	ID, Name, Title string
	Lines           []string
	Cards           []card
	Tables          []htmlTable
	Bottleneck      *cbv1.Bottleneck
	WritersLine     string
	Spec            string
}

type sweepSection struct {
	ID, Name, Title, Best string
	Lines                 []string
	Cards                 []card
	Chart                 template.HTML
	Table                 htmlTable
	Spec                  string
}

// HTML writes one page for a review: with two runs or more, first every run's verdicts
// against the first (better, worse, noise, too little data, as `cassbench compare` decides
// them); then each run's figures at a glance; the charts, which put the runs on shared
// axes; each run's tables; each sweep's curve and table. The page is one self-contained
// file, charts included as SVG, with no script: it opens with no network and prints.
func HTML(w io.Writer, title string, runs []*cbv1.BenchmarkRun, sweeps []*cbv1.BenchmarkSweep, now time.Time) error {
	page := htmlPage{Title: title, Generated: now.UTC().Format(time.RFC3339), CSS: template.CSS(pageCSS)} // #nosec G203 -- our own file
	for i, run := range runs {
		s, err := newRunSection(run, i)
		if err != nil {
			return err
		}
		page.Runs = append(page.Runs, s)
	}
	page.Glance = page.Runs
	if f, ok := timelineFigure(runs); ok {
		page.Charts = append(page.Charts, f.svg())
	}
	if f, ok := distributionFigure(runs); ok {
		page.Charts = append(page.Charts, f.svg())
	}
	if f, ok := capacityFigure(runs); ok {
		page.Charts = append(page.Charts, f.svg())
	}
	for i, sw := range sweeps {
		s, err := newSweepSection(sw, i)
		if err != nil {
			return err
		}
		page.Sweeps = append(page.Sweeps, s)
	}
	if len(runs) > 1 {
		base := compare.Side{Name: runs[0].Name, Runs: runs[:1]}
		for _, r := range runs[1:] {
			c := compare.Compare(base, compare.Side{Name: r.Name, Runs: []*cbv1.BenchmarkRun{r}}, 0.05)
			page.Comparisons = append(page.Comparisons, comparisonOf(c))
		}
	}
	if err := pageTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("writing the HTML page: %w", err)
	}
	return nil
}

func newRunSection(run *cbv1.BenchmarkRun, i int) (runSection, error) {
	spec, err := yaml.Marshal(run.Spec)
	if err != nil {
		return runSection{}, fmt.Errorf("rendering the spec of %s: %w", run.Name, err)
	}
	s := runSection{ID: "run-" + strconv.Itoa(i), Name: run.Name, Title: "BenchmarkRun " + run.Name, Spec: string(spec), Cards: runCards(run)}
	line := orDash(string(run.Status.Phase))
	if st := run.Status.Datacenter; st != nil {
		line += fmt.Sprintf(" · datacenter %s, %d nodes", st.Name, max(st.Nodes, st.Size))
		if st.CassandraVersion != "" {
			line += ", Cassandra " + st.CassandraVersion
		}
	}
	s.Lines = append(s.Lines, line)
	if msg := outcomeMessage(run.Status.Conditions); msg != "" {
		s.Lines = append(s.Lines, msg)
	}
	r := run.Status.Results
	if r == nil {
		s.Lines = append(s.Lines, "No results: no writer has reported.")
		return s, nil
	}
	s.Lines = append(s.Lines, fmt.Sprintf("%d of %d writers reported; window %s from %s; %s operations at %s ops/s.", r.WritersReported,
		run.Spec.Writers.Replicas, time.Duration(r.WindowMillis)*time.Millisecond, r.WindowStart.UTC().Format(time.RFC3339),
		numfmt.Count(r.Operations), numfmt.Count(r.OpsPerSecond)))
	if r.StartSpreadMillis > 0 || r.MaxClockOffsetMillis > 0 {
		s.Lines = append(s.Lines, fmt.Sprintf("Writers started within %d ms of each other; largest clock offset from Cassandra %d ms (corrected).",
			r.StartSpreadMillis, r.MaxClockOffsetMillis))
	}
	if sc := r.Schedule; sc != nil {
		s.Lines = append(s.Lines, fmt.Sprintf("Target %s ops/s: %s due, %s missed (%s waiting at the end), %s sent over 1 ms late, drain %d ms.",
			numfmt.Count(sc.TargetOpsPerSecond), numfmt.Count(sc.Due), numfmt.Count(sc.Missed), numfmt.Count(sc.BacklogAtEnd),
			numfmt.Count(sc.LateOver1ms), sc.DrainMillis))
	}
	s.Tables = append(s.Tables, latencyTable(r), errorTable(r))
	if t, ok := datacenterTable(r.Datacenters); ok {
		s.Tables = append(s.Tables, t)
	}
	if t, ok := writerTable(r); ok {
		s.Tables = append(s.Tables, t)
	}
	if t, ok := rawWriterTable(run.Status.WriterReports); ok {
		s.Tables = append(s.Tables, t)
	}
	if r.Server != nil {
		s.Tables = append(s.Tables, nodeTable(r.Server))
	}
	if t, ok := disruptionTable(r.Disruptions); ok {
		s.Tables = append(s.Tables, t)
	}
	if r.ReplicationLag != nil {
		t, _ := lagTable(r.ReplicationLag)
		s.Tables = append(s.Tables, t)
	}
	if b := r.Bottleneck; b != nil {
		s.Bottleneck = b
		s.WritersLine = fmt.Sprintf("Writers: busiest at %d%% of its CPU, throttled %d%% of periods, scheduler delay p99 %s.",
			b.WriterCPUPercent, b.WriterThrottledPercent, Micros(b.WriterSchedP99Micros))
	}
	return s, nil
}

func newSweepSection(sw *cbv1.BenchmarkSweep, i int) (sweepSection, error) {
	spec, err := yaml.Marshal(sw.Spec)
	if err != nil {
		return sweepSection{}, fmt.Errorf("rendering the spec of %s: %w", sw.Name, err)
	}
	s := sweepSection{ID: "sweep-" + strconv.Itoa(i), Name: sw.Name, Title: "BenchmarkSweep " + sw.Name, Spec: string(spec),
		Table: pointTable(sw), Cards: sweepCards(sw)}
	s.Lines = append(s.Lines, fmt.Sprintf("%s · %s · %d points, %d runs each", orDash(string(sw.Status.Phase)), orDash(sw.Status.Progress),
		len(sw.Status.Table), max(sw.Spec.Repeats, 1)))
	if msg := outcomeMessage(sw.Status.Conditions); msg != "" {
		s.Lines = append(s.Lines, msg)
	}
	if b := sw.Status.Best; b != nil {
		s.Best = fmt.Sprintf("Best by %s: point %d, %s", b.By, b.Point, b.Summary)
	}
	if f, ok := sweepFigure(sw, i); ok {
		s.Chart = f.svg()
	}
	return s, nil
}

// comparisonOf turns compare's rows into verdict lines; the verdicts are compare's own.
func comparisonOf(c compare.Comparison) comparisonBlock {
	out := comparisonBlock{Baseline: c.Baseline, Name: c.Name, Alpha: c.Alpha}
	for _, r := range c.Rows {
		l := verdictLine{Metric: r.Metric, Diff: fmt.Sprintf("%+.1f%%", r.DiffPercent), Evidence: compare.Evidence(r), Method: r.Method}
		switch r.Verdict {
		case compare.Better:
			l.Class, l.Verdict = "better", "better"
		case compare.Worse:
			l.Class, l.Verdict = "worse", "worse"
		case compare.NoDifference:
			l.Class, l.Verdict = "noise", "noise"
		default:
			l.Class, l.Verdict = "nodata", "too little data"
		}
		if r.Metric == "ops/s" {
			l.Baseline, l.Value = numfmt.Count(int64(r.Baseline+0.5)), numfmt.Count(int64(r.Value+0.5))
		} else {
			if r.Metric == "p999" {
				l.Metric = "p99.9"
			}
			l.Baseline, l.Value = Micros(int64(r.Baseline+0.5)), Micros(int64(r.Value+0.5))
		}
		if l.Verdict == "too little data" && r.Baseline == 0 && r.Value == 0 {
			l.Baseline, l.Value, l.Diff = "-", "-", ""
		}
		out.Lines = append(out.Lines, l)
	}
	return out
}

var pageTemplate = template.Must(template.New("report").Parse(pageHTML))
