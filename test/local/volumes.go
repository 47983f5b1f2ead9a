package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/localcassandra"
)

const (
	// provisionerName is the played provisioner's name, in its StorageClass and its volumes.
	provisionerName = "local.cassbench.io/played-provisioner"
	// nodeAnnotation names the local Cassandra node a volume holds.
	nodeAnnotation = "local.cassbench.io/node"
	// initializedMarker is the file a volume holds once its node started from it.
	initializedMarker = "node-initialized"
)

// Volumes plays a local-path provisioner, as kind's local-path-provisioner does: a claim gets
// a PersistentVolume that is a directory, pre-bound to it (kube-controller-manager's
// persistentvolume-binder completes the binding), and a volume its claim released is deleted
// with its directory (reclaim policy Delete). Each volume holds one local Cassandra node, the
// lowest of 1..MaxNodes no other volume holds: the node's data directory belongs to the
// volume, so a pod restarted on the same claim keeps its data and a new claim starts a node
// afresh. A claim beyond MaxNodes stays Pending, and its pod with it, as on a cluster out of
// disks.
type Volumes struct {
	Client   client.Client
	Dir      string
	MaxNodes int
	Logf     func(format string, args ...any)

	mu     sync.Mutex
	waited map[string]bool // claims already reported as waiting for a free node
}

// StorageClass is the class the provisioner serves; the datacenters of the tests name it.
func (v *Volumes) StorageClass(name string) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingImmediate
	reclaim := corev1.PersistentVolumeReclaimDelete
	return &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       provisionerName,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &mode,
	}
}

// Run provisions and deletes volumes until ctx ends.
func (v *Volumes) Run(ctx context.Context) {
	v.mu.Lock()
	v.waited = map[string]bool{}
	v.mu.Unlock()
	syncEvery(ctx, 300*time.Millisecond, v.sync, func(err error) { v.Logf("volumes: %v", err) })
}

func (v *Volumes) sync(ctx context.Context) error {
	var pvs corev1.PersistentVolumeList
	if err := v.Client.List(ctx, &pvs); err != nil {
		return err
	}
	held := map[int]bool{}
	claimed := map[string]bool{}
	for i := range pvs.Items {
		pv := &pvs.Items[i]
		if pv.Annotations["pv.kubernetes.io/provisioned-by"] != provisionerName {
			continue
		}
		if pv.Status.Phase == corev1.VolumeReleased && pv.DeletionTimestamp == nil {
			v.Logf("volumes: %s was released by its claim: deleting it and %s", pv.Name, pv.Spec.HostPath.Path)
			if err := os.RemoveAll(pv.Spec.HostPath.Path); err != nil {
				return err
			}
			if err := v.Client.Delete(ctx, pv); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			continue
		}
		if n, err := strconv.Atoi(pv.Annotations[nodeAnnotation]); err == nil {
			held[n] = true
		}
		if ref := pv.Spec.ClaimRef; ref != nil {
			claimed[string(ref.UID)] = true
		}
	}
	var pvcs corev1.PersistentVolumeClaimList
	if err := v.Client.List(ctx, &pvcs); err != nil {
		return err
	}
	for i := range pvcs.Items {
		pvc := &pvcs.Items[i]
		if pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil || claimed[string(pvc.UID)] {
			continue
		}
		node := 0
		for n := 1; n <= v.MaxNodes; n++ {
			if !held[n] {
				node = n
				break
			}
		}
		key := pvc.Namespace + "/" + pvc.Name
		if node == 0 {
			v.mu.Lock()
			if !v.waited[key] {
				v.waited[key] = true
				v.Logf("volumes: claim %s waits: all %d local nodes are held by volumes", key, v.MaxNodes)
			}
			v.mu.Unlock()
			continue
		}
		if err := v.provision(ctx, pvc, node); err != nil {
			return err
		}
		held[node] = true
	}
	return nil
}

func (v *Volumes) provision(ctx context.Context, pvc *corev1.PersistentVolumeClaim, node int) error {
	name := "pvc-" + string(pvc.UID)
	dir := filepath.Join(v.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if size.IsZero() {
		size = resource.MustParse("1Gi")
	}
	class := ""
	if pvc.Spec.StorageClassName != nil {
		class = *pvc.Spec.StorageClassName
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			"pv.kubernetes.io/provisioned-by": provisionerName,
			nodeAnnotation:                    strconv.Itoa(node),
		}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   pvc.Spec.AccessModes,
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: dir, Type: ptrTo(corev1.HostPathDirectoryOrCreate),
			}},
			ClaimRef: &corev1.ObjectReference{
				Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID,
			},
		},
	}
	if err := v.Client.Create(ctx, pv); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("provisioning %s for claim %s/%s: %w", name, pvc.Namespace, pvc.Name, err)
	}
	v.Logf("volumes: claim %s/%s gets %s (local node %d)", pvc.Namespace, pvc.Name, name, node)
	return nil
}

// nodeVolume is a bound volume that holds a local node.
type nodeVolume struct {
	Name, Dir string
	Node      int
}

// ForPod is the bound volume behind the pod's claim volume, or nil while the claim is not
// bound.
func (v *Volumes) ForPod(ctx context.Context, pod *corev1.Pod, volume string) (*nodeVolume, error) {
	claim := ""
	for _, vol := range pod.Spec.Volumes {
		if vol.Name == volume && vol.PersistentVolumeClaim != nil {
			claim = vol.PersistentVolumeClaim.ClaimName
		}
	}
	if claim == "" {
		return nil, fmt.Errorf("the pod has no claim volume %q", volume)
	}
	pvc := &corev1.PersistentVolumeClaim{}
	if err := v.Client.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: claim}, pvc); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if pvc.Status.Phase != corev1.ClaimBound || pvc.Spec.VolumeName == "" {
		return nil, nil
	}
	pv := &corev1.PersistentVolume{}
	if err := v.Client.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv); err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(pv.Annotations[nodeAnnotation])
	if err != nil || pv.Spec.HostPath == nil {
		return nil, fmt.Errorf("volume %s was not made by the played provisioner", pv.Name)
	}
	return &nodeVolume{Name: pv.Name, Dir: pv.Spec.HostPath.Path, Node: n}, nil
}

// prepareNode readies the volume's node for a start, with the node stopped: a fresh volume
// starts the node afresh (its data directory is removed), and the settings of earlier starts
// are dropped, so that the node runs with exactly those of this start.
func (nv *nodeVolume) prepareNode() error {
	layout := localcassandra.DefaultLayout()
	marker := filepath.Join(nv.Dir, initializedMarker)
	if _, err := os.Stat(marker); errors.Is(err, fs.ErrNotExist) {
		if err := os.RemoveAll(layout.NodeDir(nv.Node)); err != nil {
			return err
		}
		if err := os.WriteFile(marker, []byte(strconv.Itoa(nv.Node)+"\n"), 0o644); err != nil {
			return err
		}
	}
	err := os.Remove(filepath.Join(layout.NodeDir(nv.Node), "node.conf"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
