//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// dump prints what explains a failure: the run's status, the datacenter's, pods and their
// states, recent events, and the manager's and the run's pods' logs.
func (k *cluster) dump(t *testing.T, run *cbv1.BenchmarkRun) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	section := func(title string) { t.Logf("\n===== %s =====", title) }

	section("BenchmarkRun " + run.Name)
	got := &cbv1.BenchmarkRun{}
	if err := k.c.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
		t.Logf("reading run: %v", err)
	} else {
		logYAML(t, map[string]any{"spec": got.Spec, "status": got.Status})
	}

	dcNamespace := run.Spec.DatacenterRef.Namespace
	if dcNamespace == "" {
		dcNamespace = run.Namespace
	}
	section("CassandraDatacenter " + dcNamespace + "/" + run.Spec.DatacenterRef.Name)
	dc := &cassdcapi.CassandraDatacenter{}
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: dcNamespace, Name: run.Spec.DatacenterRef.Name}, dc); err != nil {
		t.Logf("reading datacenter: %v", err)
	} else {
		logYAML(t, map[string]any{"annotations": dc.Annotations, "size": dc.Spec.Size,
			"config": json.RawMessage(dc.Spec.Config), "status": dc.Status})
	}

	for _, ns := range slices.Compact([]string{run.Namespace, dcNamespace, managerNamespace}) {
		section("pods in " + ns)
		pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Logf("listing pods: %v", err)
			continue
		}
		for _, p := range pods.Items {
			t.Logf("%s phase=%s node=%s %s", p.Name, p.Status.Phase, p.Spec.NodeName, containerStates(p))
		}

		section("events in " + ns)
		events, err := k.cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Logf("listing events: %v", err)
			continue
		}
		sort.Slice(events.Items, func(i, j int) bool {
			return events.Items[i].LastTimestamp.Before(&events.Items[j].LastTimestamp)
		})
		for _, e := range events.Items {
			t.Logf("%s %s %s/%s %s: %s", e.LastTimestamp.Format(time.RFC3339), e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}

	k.logsOf(ctx, t, managerNamespace, managerSelector)
	k.logsOf(ctx, t, run.Namespace, cbv1.RunLabel+"="+run.Name)
}

func (k *cluster) logsOf(ctx context.Context, t *testing.T, ns, selector string) {
	pods, err := k.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Logf("listing pods %s: %v", selector, err)
		return
	}
	for _, p := range pods.Items {
		for _, ctr := range p.Spec.Containers {
			t.Logf("\n===== logs %s/%s %s =====", ns, p.Name, ctr.Name)
			tail := int64(300)
			stream, err := k.cs.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: ctr.Name, TailLines: &tail}).Stream(ctx)
			if err != nil {
				t.Logf("reading logs: %v", err)
				continue
			}
			var buf bytes.Buffer
			_, _ = io.Copy(&buf, stream)
			_ = stream.Close()
			t.Log(buf.String())
		}
	}
}

func containerStates(p corev1.Pod) string {
	var parts []string
	for _, s := range p.Status.ContainerStatuses {
		switch {
		case s.State.Waiting != nil:
			parts = append(parts, fmt.Sprintf("%s=waiting(%s: %s)", s.Name, s.State.Waiting.Reason, s.State.Waiting.Message))
		case s.State.Terminated != nil:
			parts = append(parts, fmt.Sprintf("%s=terminated(%d %s)", s.Name, s.State.Terminated.ExitCode, s.State.Terminated.Reason))
		default:
			parts = append(parts, fmt.Sprintf("%s=running ready=%v restarts=%d", s.Name, s.Ready, s.RestartCount))
		}
	}
	return strings.Join(parts, " ")
}

func logYAML(t *testing.T, v any) {
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Logf("%+v", v)
		return
	}
	t.Log("\n" + string(b))
}
