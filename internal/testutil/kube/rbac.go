package kube

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ServiceAccountConfig creates the service account namespace/name, grants it the ClusterRoles
// and Roles found in roleFiles (multi-document YAML; relative paths are from the repository
// root, e.g. "config/rbac/role.yaml") and returns a config that impersonates it. A manager
// run with that config fails on any permission missing from the generated role, as it would
// in a cluster.
//
// Roles are renamed per service account, because ClusterRoles are cluster-wide and tests
// sharing one control plane must not overwrite each other's. Namespaced Roles are created in
// the service account's namespace.
func (e *Env) ServiceAccountConfig(tb testing.TB, namespace, name string, roleFiles ...string) *rest.Config {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := e.Client.Create(ctx, sa); err != nil {
		tb.Fatalf("creating service account %s/%s: %v", namespace, name, err)
	}
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}

	var probes []authorizationv1.SubjectAccessReviewSpec
	for _, file := range roleFiles {
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(e.Root, path)
		}
		objs, err := readRoles(path)
		if err != nil {
			tb.Fatalf("reading roles: %v", err)
		}
		for _, obj := range objs {
			grantName := fmt.Sprintf("%s-%s-%s", obj.GetName(), namespace, name)
			switch role := obj.(type) {
			case *rbacv1.ClusterRole:
				role.ObjectMeta = metav1.ObjectMeta{Name: grantName, Labels: role.Labels}
				binding := &rbacv1.ClusterRoleBinding{
					ObjectMeta: metav1.ObjectMeta{Name: grantName},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: grantName},
					Subjects:   []rbacv1.Subject{subject},
				}
				e.createAndCleanUp(ctx, tb, role, binding)
				probes = append(probes, ruleProbes(role.Rules, "")...)
			case *rbacv1.Role:
				role.ObjectMeta = metav1.ObjectMeta{Namespace: namespace, Name: grantName, Labels: role.Labels}
				binding := &rbacv1.RoleBinding{
					ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: grantName},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: grantName},
					Subjects:   []rbacv1.Subject{subject},
				}
				e.createAndCleanUp(ctx, tb, role, binding)
				probes = append(probes, ruleProbes(role.Rules, namespace)...)
			}
		}
	}

	// The RBAC authorizer sees new bindings through an informer; wait until it does, or the
	// first requests of the test would be refused for a reason the test is not about.
	for _, probe := range probes {
		probe.User, probe.Groups = user, groups
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true,
			func(ctx context.Context) (bool, error) {
				review := &authorizationv1.SubjectAccessReview{Spec: probe}
				if err := e.Client.Create(ctx, review); err != nil {
					return false, err
				}
				return review.Status.Allowed, nil
			})
		if err != nil {
			tb.Fatalf("waiting for RBAC to grant %s %+v: %v", user, probe, err)
		}
	}

	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return cfg
}

func (e *Env) createAndCleanUp(ctx context.Context, tb testing.TB, objs ...client.Object) {
	tb.Helper()
	for _, obj := range objs {
		if err := e.Client.Create(ctx, obj); err != nil {
			tb.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
		}
		tb.Cleanup(func() {
			// Cluster-scoped grants would otherwise outlive the test in a shared control plane.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := client.IgnoreNotFound(e.Client.Delete(ctx, obj)); err != nil {
				tb.Errorf("deleting %T %s: %v", obj, obj.GetName(), err)
			}
		})
	}
}

// ruleProbes returns one access review per rule: the first verb on the first resource it
// grants. Rules come from the role itself, so each probe is allowed once the binding is seen.
func ruleProbes(rules []rbacv1.PolicyRule, namespace string) []authorizationv1.SubjectAccessReviewSpec {
	var probes []authorizationv1.SubjectAccessReviewSpec
	for _, r := range rules {
		if len(r.Verbs) == 0 {
			continue
		}
		switch {
		case len(r.NonResourceURLs) > 0:
			probes = append(probes, authorizationv1.SubjectAccessReviewSpec{
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: r.NonResourceURLs[0], Verb: r.Verbs[0]},
			})
		case len(r.APIGroups) > 0 && len(r.Resources) > 0:
			attrs := &authorizationv1.ResourceAttributes{
				Namespace: namespace,
				Verb:      r.Verbs[0],
				Group:     r.APIGroups[0],
				Resource:  r.Resources[0],
			}
			if len(r.ResourceNames) > 0 {
				attrs.Name = r.ResourceNames[0]
			}
			probes = append(probes, authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs})
		}
	}
	return probes
}

// readRoles decodes every Role and ClusterRole in a multi-document YAML file. Any other kind
// is an error: a file passed as a role that grants nothing would make a permission test pass
// for the wrong reason.
func readRoles(path string) ([]client.Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []client.Object
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(doc, &u.Object); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(u.Object) == 0 {
			continue // a document of comments only
		}
		var obj client.Object
		switch u.GroupVersionKind() {
		case rbacv1.SchemeGroupVersion.WithKind("ClusterRole"):
			obj = &rbacv1.ClusterRole{}
		case rbacv1.SchemeGroupVersion.WithKind("Role"):
			obj = &rbacv1.Role{}
		default:
			return nil, fmt.Errorf("%s: %s %q is not a Role or ClusterRole", path, u.GroupVersionKind(), u.GetName())
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			return nil, fmt.Errorf("decoding %s %q in %s: %w", u.GetKind(), u.GetName(), path, err)
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s holds no Role or ClusterRole", path)
	}
	return objs, nil
}
