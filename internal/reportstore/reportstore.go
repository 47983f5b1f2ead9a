// Package reportstore keeps every writer's raw report in ConfigMaps the run owns, so that the
// run's status holds only a compact row per writer and stays small at a thousand writers,
// while every report stays readable for as long as the run exists.
//
// Writer i is stored in the ConfigMap <run>-reports-<i/PerConfigMap>, under its own key, as
// gzip-compressed JSON. The name and key follow from the index alone, so a manager that
// restarts between writing a ConfigMap and writing status finds what it wrote and neither
// loses nor repeats a report.
package reportstore

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// Component is the value of cbv1.ComponentLabel on a run's report ConfigMaps.
const Component = "reports"

// PerConfigMap is how many writers one ConfigMap holds. A writer's summary is at most 4,096
// bytes and the rest of its report (pod name and UID, reason) under 700, so 200 reports fit
// the apiserver's 1 MiB limit on a ConfigMap's data even if none compressed at all.
const PerConfigMap = 200

// maxReportBytes bounds what one key may decompress to: a report is at most a 4,096-byte
// summary plus its row; anything larger was not written by Encode.
const maxReportBytes = 64 << 10

const keyPrefix, keySuffix = "writer-", ".json.gz"

// Name is the ConfigMap that holds writer index's report.
func Name(run string, index int32) string {
	return fmt.Sprintf("%s-reports-%d", run, index/PerConfigMap)
}

// Key is the binaryData key of writer index's report.
func Key(index int32) string {
	return fmt.Sprintf("%s%d%s", keyPrefix, index, keySuffix)
}

// Selector is the labels that select a run's report ConfigMaps.
func Selector(run string) map[string]string {
	return map[string]string{cbv1.RunLabel: run, cbv1.ComponentLabel: Component}
}

// Compact is a report as status keeps it: everything but the summary, which is in ConfigMap.
func Compact(r cbv1.WriterReport, configMap string) cbv1.WriterReport {
	r.Summary = ""
	r.ConfigMap = configMap
	return r
}

// ConfigMaps builds the ConfigMaps that store reports, one per ConfigMap name, controlled by
// the run; each holds only the given reports (Add merges them into one that exists).
func ConfigMaps(run *cbv1.BenchmarkRun, reports []cbv1.WriterReport) []*corev1.ConfigMap {
	byName := map[string]*corev1.ConfigMap{}
	for _, r := range reports {
		name := Name(run.Name, r.Index)
		cm := byName[name]
		if cm == nil {
			labels := Selector(run.Name)
			labels["app.kubernetes.io/name"] = "cassbench"
			labels["app.kubernetes.io/component"] = Component
			labels["app.kubernetes.io/managed-by"] = "cassbench"
			cm = &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: run.Namespace, Labels: labels,
					OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(run, cbv1.GroupVersion.WithKind("BenchmarkRun"))}},
				// Immutable would forbid adding the writers that finish later.
				BinaryData: map[string][]byte{},
			}
			byName[name] = cm
		}
		cm.BinaryData[Key(r.Index)] = Encode(r)
	}
	names := slices.Sorted(maps.Keys(byName))
	out := make([]*corev1.ConfigMap, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}

// Add copies into existing the reports of cm it does not hold yet and tells whether it
// changed. A stored report is never replaced: it is what that writer measured.
func Add(existing, cm *corev1.ConfigMap) bool {
	changed := false
	for k, v := range cm.BinaryData {
		if _, ok := existing.BinaryData[k]; ok {
			continue
		}
		if existing.BinaryData == nil {
			existing.BinaryData = map[string][]byte{}
		}
		existing.BinaryData[k] = v
		changed = true
	}
	return changed
}

// Encode compresses one report.
func Encode(r cbv1.WriterReport) []byte {
	r.ConfigMap = ""
	// Neither can fail: the report is strings and integers, and the writer is a buffer.
	raw, _ := json.Marshal(r)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	return buf.Bytes()
}

// Decode reads back what Encode wrote.
func Decode(b []byte) (cbv1.WriterReport, error) {
	var r cbv1.WriterReport
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return r, fmt.Errorf("decompressing: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxReportBytes+1))
	if err != nil {
		return r, fmt.Errorf("decompressing: %w", err)
	}
	if len(raw) > maxReportBytes {
		return r, fmt.Errorf("a report decompresses to more than %d bytes", maxReportBytes)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("parsing: %w", err)
	}
	return r, nil
}

// Read decodes every report the ConfigMaps hold, in index order, each naming its ConfigMap.
// Only ConfigMaps the run controls count: one left by an earlier run of the same name is
// never read as this run's. A key that cannot be read is an error naming it: a stored report
// is never silently dropped.
func Read(run *cbv1.BenchmarkRun, cms []corev1.ConfigMap) ([]cbv1.WriterReport, error) {
	var out []cbv1.WriterReport
	for i := range cms {
		cm := &cms[i]
		if !metav1.IsControlledBy(cm, run) {
			continue
		}
		for k, b := range cm.BinaryData {
			index, ok := indexOf(k)
			if !ok {
				continue
			}
			r, err := Decode(b)
			if err != nil {
				return nil, fmt.Errorf("reading %s of ConfigMap %s: %w", k, cm.Name, err)
			}
			if r.Index != index {
				return nil, fmt.Errorf("reading %s of ConfigMap %s: it holds the report of writer %d", k, cm.Name, r.Index)
			}
			r.ConfigMap = cm.Name
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

func indexOf(key string) (int32, bool) {
	s, ok := strings.CutPrefix(key, keyPrefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, keySuffix)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int32(n), err == nil && n >= 0
}
