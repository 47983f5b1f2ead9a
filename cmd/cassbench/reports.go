package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/reportstore"
)

// withReports puts every writer's raw summary, read from the ConfigMaps the run owns, into
// its row of status.writerReports: status keeps only the rows. A row of an older run that
// kept its summary in status keeps it.
func withReports(ctx context.Context, c client.Reader, run *cbv1.BenchmarkRun) error {
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, client.InNamespace(run.Namespace), client.MatchingLabels(reportstore.Selector(run.Name))); err != nil {
		return fmt.Errorf("listing the ConfigMaps that hold the writer reports of BenchmarkRun %s: %w", run.Name, err)
	}
	stored, err := reportstore.Read(run, cms.Items)
	if err != nil {
		return fmt.Errorf("BenchmarkRun %s: %w", run.Name, err)
	}
	rows := map[int32]int{}
	for i, r := range run.Status.WriterReports {
		rows[r.Index] = i
	}
	for _, s := range stored {
		if i, ok := rows[s.Index]; ok {
			run.Status.WriterReports[i].Summary = s.Summary
			continue
		}
		// Stored, and the manager stopped before writing its row: it is still the writer's.
		run.Status.WriterReports = append(run.Status.WriterReports, s)
	}
	return nil
}

// printReports writes each writer's raw report as one JSON line (the summary as the writer
// wrote it, in "summary"), and names on stderr the writers whose report is not stored.
func printReports(stdout, stderr io.Writer, run *cbv1.BenchmarkRun) error {
	enc := json.NewEncoder(stdout)
	for _, r := range run.Status.WriterReports {
		if r.Summary == "" {
			_, _ = fmt.Fprintf(stderr, "writer %d (pod %s): no summary stored\n", r.Index, r.Pod)
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("writing the report of writer %d: %w", r.Index, err)
		}
	}
	return nil
}
