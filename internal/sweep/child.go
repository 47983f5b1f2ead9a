package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cbv1 "github.com/cassbench/cassbench/api/v1alpha1"
)

// MaxRunName is the longest BenchmarkRun name the CRD admits: the name goes into its Jobs'
// names and its pods' labels.
const MaxRunName = 56

// RunName names the run of one repeat of one point: <sweep>-<point>-<repeat>. A name that
// would be too long keeps a prefix of the sweep's name and a hash of all of it, so it stays
// unique and the same on every reconcile.
func RunName(sweep string, point, repeat int) string {
	name := fmt.Sprintf("%s-%d-%d", sweep, point, repeat)
	if len(name) <= MaxRunName {
		return name
	}
	sum := sha256.Sum256([]byte(sweep))
	suffix := fmt.Sprintf("-%s-%d-%d", hex.EncodeToString(sum[:])[:8], point, repeat)
	prefix := strings.TrimRight(sweep[:MaxRunName-len(suffix)], "-.")
	return prefix + suffix
}

// Child builds the run of one repeat of one point: named by RunName, labelled with its sweep,
// point and repeat, and controlled by the sweep so that deleting the sweep deletes it.
func Child(sw *cbv1.BenchmarkSweep, point, repeat int, spec *cbv1.BenchmarkRunSpec) *cbv1.BenchmarkRun {
	return &cbv1.BenchmarkRun{
		TypeMeta: metav1.TypeMeta{APIVersion: cbv1.GroupVersion.String(), Kind: "BenchmarkRun"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      RunName(sw.Name, point, repeat),
			Namespace: sw.Namespace,
			Labels: map[string]string{
				cbv1.SweepLabel:       sw.Name,
				cbv1.SweepPointLabel:  strconv.Itoa(point),
				cbv1.SweepRepeatLabel: strconv.Itoa(repeat),
			},
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(sw, cbv1.GroupVersion.WithKind("BenchmarkSweep")),
			},
		},
		Spec: *spec.DeepCopy(),
	}
}
