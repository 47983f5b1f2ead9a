package history

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// figuresOf are the figures any run of the series measured, in table order; with all, only
// those every run measured.
func figuresOf(s Series, all bool) []Figure {
	var out []Figure
	for _, f := range Figures {
		n := 0
		for _, r := range s.Runs {
			if _, ok := r.Values[f.Column]; ok {
				n++
			}
		}
		if (all && n == len(s.Runs) && n > 0) || (!all && n > 0) {
			out = append(out, f)
		}
	}
	return out
}

// Text prints each series as a table of its runs' figures, a star after a value where a
// change starts, and the changes below it.
func Text(w io.Writer, series []Series) error {
	for i, s := range series {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if err := text(w, s); err != nil {
			return err
		}
	}
	return nil
}

func text(w io.Writer, s Series) error {
	figs := figuresOf(s, false)
	first, last := s.Runs[0].Time, s.Runs[len(s.Runs)-1].Time
	if _, err := fmt.Fprintf(w, "experiment %s: %d runs, %s to %s\n", s.Experiment, len(s.Runs),
		first.Format(time.DateTime), last.Format(time.DateTime)); err != nil {
		return err
	}
	starts := map[[2]string]bool{}
	for _, c := range s.Changes {
		starts[[2]string{c.Figure, c.Run}] = true
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"run", "time", "commit"}
	for _, f := range figs {
		head = append(head, f.Name)
	}
	_, _ = fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range s.Runs {
		row := []string{r.Name, r.Time.Format("2006-01-02 15:04"), shortCommit(r.Commit)}
		for _, f := range figs {
			cell := "-"
			if v, ok := r.Values[f.Column]; ok {
				cell = formatValue(v)
			}
			if starts[[2]string{f.Name, r.Name}] {
				cell += " *"
			}
			row = append(row, cell)
		}
		_, _ = fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Changes) == 0 {
		_, err := fmt.Fprintln(w, "no significant change")
		return err
	}
	if _, err := fmt.Fprintln(w, "changes (* above):"); err != nil {
		return err
	}
	for _, c := range s.Changes {
		if _, err := fmt.Fprintf(w, "  %s\n", c.Describe()); err != nil {
			return err
		}
	}
	return nil
}

func shortCommit(c string) string {
	if c == "" {
		return "-"
	}
	if len(c) > 10 {
		return c[:10]
	}
	return c
}

// JSON writes the series, their runs and their changes.
func JSON(w io.Writer, series []Series) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if series == nil {
		series = []Series{}
	}
	return enc.Encode(series)
}

// CSV writes one row per run of every series: experiment, run, time, commit, then every
// figure any run measured (empty where a run did not).
func CSV(w io.Writer, series []Series) error {
	cw := csv.NewWriter(w)
	head := []string{"experiment", "run", "time", "commit"}
	for _, f := range Figures {
		head = append(head, f.Column)
	}
	_ = cw.Write(head)
	for _, s := range series {
		for _, r := range s.Runs {
			row := []string{s.Experiment, r.Name, r.Time.Format(time.RFC3339), r.Commit}
			for _, f := range Figures {
				cell := ""
				if v, ok := r.Values[f.Column]; ok {
					cell = strconv.FormatFloat(v, 'g', -1, 64)
				}
				row = append(row, cell)
			}
			_ = cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// OtavaCSV writes a series as Apache Otava's CSV importer reads it: a time column, the run
// and commit as attributes, and one column per figure that every run measured (Otava takes
// no empty cell).
func OtavaCSV(w io.Writer, s Series) error {
	figs := figuresOf(s, true)
	cw := csv.NewWriter(w)
	head := []string{"time", "run", "commit"}
	for _, f := range figs {
		head = append(head, f.Column)
	}
	_ = cw.Write(head)
	for _, r := range s.Runs {
		row := []string{r.Time.Format("2006-01-02 15:04:05 -0700"), r.Name, r.Commit}
		for _, f := range figs {
			row = append(row, strconv.FormatFloat(r.Values[f.Column], 'g', -1, 64))
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// OtavaFile is the CSV file name OtavaConfig gives a series.
func OtavaFile(s Series) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(s.Experiment) + ".csv"
}

// OtavaConfig writes an otava.yaml with one CSV test per series, its file (OtavaFile) under
// dir, and each figure's direction (1: higher is better, -1: lower is better), so that
// `otava analyze` reads the export as it is.
func OtavaConfig(w io.Writer, series []Series, dir string) error {
	var b strings.Builder
	b.WriteString("# Written by cassbench history --otava: one test per experiment.\ntests:\n")
	for _, s := range series {
		fmt.Fprintf(&b, "  %s:\n    type: csv\n    file: %s\n    time_column: time\n    attributes: [run, commit]\n    metrics:\n",
			strconv.Quote(s.Experiment), strconv.Quote(strings.TrimSuffix(dir, "/")+"/"+OtavaFile(s)))
		for _, f := range figuresOf(s, true) {
			dir := -1
			if f.HigherIsBetter {
				dir = 1
			}
			fmt.Fprintf(&b, "      %s:\n        direction: %d\n", f.Column, dir)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
