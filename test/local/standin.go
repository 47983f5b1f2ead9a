package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	cassdcapi "github.com/k8ssandra/cass-operator/apis/cassandra/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/datacenter"
	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// DatacenterStandIn plays cass-operator v1.31 for one CassandraDatacenter, backed by the local
// Cassandra nodes: node i of the datacenter is 127.0.0.i. Like cass-operator's reconcile loop
// it takes one step at a time and looks at the spec again after each: a scale-down
// decommissions the highest node, a config change restarts the nodes one by one with the
// rendered config, a scale-up bootstraps the next node. The status shows each step as
// cass-operator does: progress Updating, the condition of the step True while Ready stays
// True, and observedGeneration only once everything the generation asked for is applied.
type DatacenterStandIn struct {
	Client client.Client
	Key    types.NamespacedName
	Nodes  *Nodes
	Logf   func(format string, args ...any)
	// Retry is how soon a step that failed is tried again, as a crash-looping pod would be.
	Retry time.Duration

	mu      sync.Mutex
	members []member // members[i-1] is node i
	settled map[int64]time.Time
	service string // the CQL service's DNS names resolve to the members' addresses
	current int64  // the generation last seen
}

// member is one node of the datacenter as the stand-in started it.
type member struct {
	config   json.RawMessage // the spec.config it was started with
	settings NodeSettings
	up       bool
}

// errFailedStep is a step that could not be taken; the stand-in retries it.
var errFailedStep = errors.New("step failed")

// Run plays cass-operator until ctx ends. The nodes running when it starts are the
// datacenter's, with the base config.
func (d *DatacenterStandIn) Run(ctx context.Context) {
	d.mu.Lock()
	d.settled = map[int64]time.Time{}
	d.members = nil
	for range d.Nodes.Running() {
		d.members = append(d.members, member{up: true})
	}
	d.mu.Unlock()
	retry := d.Retry
	if retry == 0 {
		retry = 20 * time.Second
	}
	var failedAt time.Time
	var failedGen int64
	for ctx.Err() == nil {
		dc := &cassdcapi.CassandraDatacenter{}
		err := d.Client.Get(ctx, d.Key, dc)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			if ctx.Err() == nil {
				d.Logf("datacenter stand-in: reading %s: %v", d.Key, err)
			}
		case dc.Generation == failedGen && time.Since(failedAt) < retry:
			// Back off, unless the spec changed.
		default:
			d.mu.Lock()
			d.current = dc.Generation
			d.mu.Unlock()
			if err := d.step(ctx, dc); err != nil {
				if ctx.Err() != nil {
					return
				}
				d.Logf("datacenter stand-in: %s (retrying in %s or when the spec changes)", brief(err), retry)
				failedAt, failedGen = time.Now(), dc.Generation
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// step takes the next step towards the spec, or reports the datacenter settled.
func (d *DatacenterStandIn) step(ctx context.Context, dc *cassdcapi.CassandraDatacenter) error {
	if err := d.ensureObjects(ctx, dc); err != nil {
		return err
	}
	want, notes, err := render(dc.Spec.Config, d.Nodes.Base())
	if err != nil {
		// cass-operator refuses a config it cannot build and says so in Valid.
		return d.setStatus(ctx, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
			kube.SetDatacenterCondition(s, cassdcapi.DatacenterValid, corev1.ConditionFalse, "ConfigInvalid")
			setMessage(s, cassdcapi.DatacenterValid, err.Error())
		})
	}
	d.mu.Lock()
	size := len(d.members)
	members := append([]member(nil), d.members...)
	d.mu.Unlock()
	target := int(dc.Spec.Size)
	if target > d.Nodes.MaxNodes {
		return d.setStatus(ctx, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
			kube.SetDatacenterCondition(s, cassdcapi.DatacenterValid, corev1.ConditionFalse, "SizeUnavailable")
			setMessage(s, cassdcapi.DatacenterValid, fmt.Sprintf("the local cluster has room for %d nodes, not %d", d.Nodes.MaxNodes, target))
		})
	}

	if size > target {
		i := size
		d.Logf("datacenter stand-in: generation %d: scaling down: decommissioning node %d", dc.Generation, i)
		if err := d.busy(ctx, dc, cassdcapi.DatacenterScalingDown); err != nil {
			return err
		}
		if err := d.Nodes.Remove(ctx, i); err != nil {
			return fmt.Errorf("decommissioning node %d: %w: %w", i, errFailedStep, err)
		}
		d.mu.Lock()
		d.members = d.members[:i-1]
		d.mu.Unlock()
		return nil
	}
	for i := 1; i <= size; i++ {
		m := members[i-1]
		if m.up && d.Nodes.running(i) && datacenter.SameJSON(m.config, dc.Spec.Config) {
			continue
		}
		for _, n := range notes {
			d.Logf("datacenter stand-in: %s", n)
		}
		d.Logf("datacenter stand-in: generation %d: rolling restart: node %d with %s", dc.Generation, i, want)
		if err := d.busy(ctx, dc, cassdcapi.DatacenterRollingRestart); err != nil {
			return err
		}
		err := d.Nodes.Restart(ctx, i, m.settings, want)
		d.mu.Lock()
		// The node keeps what it was started with, whether or not it came up.
		d.members[i-1] = member{config: dc.Spec.Config, settings: want, up: err == nil}
		d.mu.Unlock()
		if err != nil {
			return fmt.Errorf("restarting node %d: %w: %w", i, errFailedStep, err)
		}
		return d.nodeStarted(ctx, dc)
	}
	if size < target {
		i := size + 1
		d.Logf("datacenter stand-in: generation %d: scaling up: bootstrapping node %d with %s", dc.Generation, i, want)
		if err := d.busy(ctx, dc, cassdcapi.DatacenterScalingUp); err != nil {
			return err
		}
		err := d.Nodes.Add(ctx, i, want)
		d.mu.Lock()
		d.members = append(d.members, member{config: dc.Spec.Config, settings: want, up: err == nil})
		d.mu.Unlock()
		if err != nil {
			return fmt.Errorf("bootstrapping node %d: %w: %w", i, errFailedStep, err)
		}
		return d.nodeStarted(ctx, dc)
	}
	return d.settle(ctx, dc)
}

// busy shows a step in progress: Updating and the step's condition True, Ready still True,
// observedGeneration left behind.
func (d *DatacenterStandIn) busy(ctx context.Context, dc *cassdcapi.CassandraDatacenter, step cassdcapi.DatacenterConditionType) error {
	return d.setStatus(ctx, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		s.CassandraOperatorProgress = cassdcapi.ProgressUpdating
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterValid, corev1.ConditionTrue, "")
		kube.SetDatacenterCondition(s, cassdcapi.DatacenterUpdating, corev1.ConditionTrue, "")
		for _, c := range []cassdcapi.DatacenterConditionType{cassdcapi.DatacenterRollingRestart, cassdcapi.DatacenterScalingUp, cassdcapi.DatacenterScalingDown} {
			status := corev1.ConditionFalse
			if c == step {
				status = corev1.ConditionTrue
			}
			kube.SetDatacenterCondition(s, c, status, "")
		}
	})
}

func (d *DatacenterStandIn) nodeStarted(ctx context.Context, dc *cassdcapi.CassandraDatacenter) error {
	return d.setStatus(ctx, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		s.LastServerNodeStarted = metav1.Now()
	})
}

// settle reports the generation applied, once.
func (d *DatacenterStandIn) settle(ctx context.Context, dc *cassdcapi.CassandraDatacenter) error {
	s := dc.Status
	if s.ObservedGeneration == dc.Generation && s.CassandraOperatorProgress == cassdcapi.ProgressReady &&
		s.GetConditionStatus(cassdcapi.DatacenterUpdating) == corev1.ConditionFalse {
		return nil
	}
	gen := dc.Generation
	err := d.setStatus(ctx, dc, func(s *cassdcapi.CassandraDatacenterStatus) {
		s.ObservedGeneration = gen
		s.CassandraOperatorProgress = cassdcapi.ProgressReady
		name := dc.DatacenterName()
		s.DatacenterName = &name
		if s.MetadataVersion < 1 {
			s.MetadataVersion = 1
		}
		if s.SuperUserUpserted.IsZero() {
			s.SuperUserUpserted = metav1.Now()
		}
		kube.SettleConditions(s)
	})
	if err != nil {
		return err
	}
	d.mu.Lock()
	if _, ok := d.settled[gen]; !ok {
		d.settled[gen] = time.Now()
		d.Logf("datacenter stand-in: generation %d applied: %d node(s) ready", gen, len(d.members))
	}
	d.mu.Unlock()
	return nil
}

func (d *DatacenterStandIn) setStatus(ctx context.Context, dc *cassdcapi.CassandraDatacenter, mutate func(*cassdcapi.CassandraDatacenterStatus)) error {
	fresh := dc.DeepCopy()
	if err := kube.SetDatacenterStatus(ctx, d.Client, fresh, mutate); err != nil {
		return err
	}
	return nil
}

// brief keeps the lines of a failed step that say why: the first, and those naming an
// exception or error (the script's output carries the node's whole log).
func brief(err error) string {
	lines := strings.Split(err.Error(), "\n")
	out := []string{lines[0]}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if (strings.Contains(l, "Exception") || strings.Contains(l, "error:")) && !seen[l] && len(out) < 5 {
			seen[l] = true
			out = append(out, "  "+l)
		}
	}
	return strings.Join(out, "\n")
}

func setMessage(s *cassdcapi.CassandraDatacenterStatus, t cassdcapi.DatacenterConditionType, msg string) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			s.Conditions[i].Message = msg
		}
	}
}

// ensureObjects creates what cass-operator creates with a datacenter and cassbench reads: the
// superuser secret (the local cluster's superuser) and the CQL service.
func (d *DatacenterStandIn) ensureObjects(ctx context.Context, dc *cassdcapi.CassandraDatacenter) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: dc.GetSuperuserSecretNamespacedName().Name, Namespace: dc.Namespace, Labels: dc.GetClusterLabels()},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"username": []byte(Username), "password": []byte(Password)},
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: dc.GetDatacenterServiceName(), Namespace: dc.Namespace, Labels: dc.GetDatacenterLabels()},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  dc.GetDatacenterLabels(),
			Ports:     []corev1.ServicePort{{Name: "native", Port: 9042, Protocol: corev1.ProtocolTCP}},
		},
	}
	for _, obj := range []client.Object{secret, svc} {
		if err := d.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
	}
	d.mu.Lock()
	d.service = svc.Name + "." + svc.Namespace + ".svc"
	d.mu.Unlock()
	return nil
}

// HostAliases are the cluster DNS answers for the datacenter's CQL service: the addresses of
// its nodes that are up, as a headless service resolves.
func (d *DatacenterStandIn) HostAliases() []HostAlias {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.service == "" {
		return nil
	}
	var out []HostAlias
	for i, m := range d.members {
		if m.up {
			out = append(out, HostAlias{IP: NodeIP(i + 1), Hostnames: []string{d.service, d.service + ".cluster.local"}})
		}
	}
	return out
}

// SettledAt is when the stand-in reported a generation applied.
func (d *DatacenterStandIn) SettledAt(generation int64) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.settled[generation]
	return at, ok
}

// Member is one node of the datacenter as the stand-in knows it.
type Member struct {
	Node     int
	Settings NodeSettings
	Up       bool
}

// Members lists the datacenter's nodes.
func (d *DatacenterStandIn) Members() []Member {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Member, len(d.members))
	for i, m := range d.members {
		out[i] = Member{Node: i + 1, Settings: m.settings, Up: m.up}
	}
	return out
}
