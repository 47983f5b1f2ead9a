package report_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
	"github.com/cassbench/cassbench/internal/report"
)

// FuzzRead: the files `cassbench results -f`, `compare -f` and `report -f` read. Read returns
// an error or an object that renders in every format, and whose JSON document is a fixed
// point: read, written, read again and written again, it does not change.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"run.json", "sweep.json", "run-server.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"schemaVersion":1,"kind":"BenchmarkSweep","table":[{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		obj, err := report.Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		first := render(t, obj)
		again, err := report.Read(bytes.NewReader(first))
		if err != nil {
			t.Fatalf("reading what -o json wrote: %v\n%s", err, first)
		}
		if second := render(t, again); !bytes.Equal(first, second) {
			t.Fatalf("document is not a fixed point:\n%s\n%s", first, second)
		}
	})
}

// render writes obj in every format, failing on an error, and returns its JSON document.
func render(t *testing.T, obj any) []byte {
	var doc bytes.Buffer
	var runs []*cbv1.BenchmarkRun
	var sweeps []*cbv1.BenchmarkSweep
	switch o := obj.(type) {
	case *cbv1.BenchmarkRun:
		runs = append(runs, o)
		for _, f := range []report.Format{report.Table, report.CSV} {
			if err := report.Run(io.Discard, o, f); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if err := report.Run(&doc, o, report.JSON); err != nil {
			t.Fatal(err)
		}
	case *cbv1.BenchmarkSweep:
		sweeps = append(sweeps, o)
		for _, f := range []report.Format{report.Table, report.CSV} {
			if err := report.Sweep(io.Discard, o, f); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		}
		if err := report.Sweep(&doc, o, report.JSON); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("Read returned a %T", obj)
	}
	if err := report.HTML(io.Discard, "fuzz", runs, sweeps, time.Unix(0, 0)); err != nil {
		t.Fatalf("html: %v", err)
	}
	return doc.Bytes()
}
