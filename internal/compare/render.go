package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
)

// Text renders comparisons for a terminal: each side against the baseline, a line per figure.
func Text(w io.Writer, cs []Comparison) error {
	for i, c := range cs {
		if i > 0 {
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "%s against %s (significance level %g)\n", c.Name, c.Baseline, c.Alpha); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintf(tw, "\tbaseline\tthis\tdiff\tverdict\tevidence\n")
		var methods []string
		for _, r := range c.Rows {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%+.1f%%\t%s\t%s\n", r.Metric, figure(r.Metric, r.Baseline), figure(r.Metric, r.Value),
				r.DiffPercent, r.Verdict, Evidence(r))
			if !slices.Contains(methods, r.Method) {
				methods = append(methods, r.Method)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, m := range methods {
			if _, err := fmt.Fprintf(w, "  how: %s\n", m); err != nil {
				return err
			}
		}
	}
	return nil
}

func figure(metric string, v float64) string {
	if metric == "ops/s" {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + "us"
}

// Evidence says on what a row's verdict rests: the p-value, or the interval of the
// difference; the HTML report shows it beside each verdict.
func Evidence(r Row) string {
	switch {
	case r.PValue != nil && *r.PValue < 0.001:
		return "p<0.001"
	case r.PValue != nil:
		return fmt.Sprintf("p=%.3f", *r.PValue)
	case r.Interval != nil:
		return fmt.Sprintf("diff within [%+.1f%%, %+.1f%%]", r.Interval.Low, r.Interval.High)
	}
	return "-"
}

// JSON renders comparisons as a JSON array.
func JSON(w io.Writer, cs []Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(cs)
}

// CSV renders one row per side and figure.
func CSV(w io.Writer, cs []Comparison) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"baseline", "name", "metric", "baselineValue", "value", "diffPercent", "verdict", "significant", "pValue", "intervalLowPercent", "intervalHighPercent", "method"})
	for _, c := range cs {
		for _, r := range c.Rows {
			p, lo, hi := "", "", ""
			if r.PValue != nil {
				p = strconv.FormatFloat(*r.PValue, 'g', 4, 64)
			}
			if r.Interval != nil {
				lo, hi = strconv.FormatFloat(r.Interval.Low, 'f', 2, 64), strconv.FormatFloat(r.Interval.High, 'f', 2, 64)
			}
			_ = cw.Write([]string{c.Baseline, c.Name, r.Metric, strconv.FormatFloat(r.Baseline, 'f', 0, 64), strconv.FormatFloat(r.Value, 'f', 0, 64),
				strconv.FormatFloat(r.DiffPercent, 'f', 2, 64), r.Verdict, strconv.FormatBool(r.Significant), p, lo, hi, r.Method})
		}
	}
	cw.Flush()
	return cw.Error()
}
