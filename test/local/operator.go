package local

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cassbench/cassbench/internal/testutil/kube"
)

// operatorImageRef finds the image of cass-operator's Deployment in its manifests.
var operatorImageRef = regexp.MustCompile(`(?m)^\s*image:\s*"?(\S*k8ssandra/cass-operator:[^"\s]+)`)

// operatorImage is the image cass-operator's manifests name (its version's tag); the pod runner
// maps its /manager to the manager built from the module (hack/cass-operator.sh).
func operatorImage(manifests string) (string, error) {
	data, err := os.ReadFile(manifests)
	if err != nil {
		return "", err
	}
	m := operatorImageRef.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s names no k8ssandra/cass-operator image", manifests)
	}
	return string(m[1]), nil
}

// operatorUser is the user the operator's image runs as (its Dockerfile: USER 65532:65532).
var operatorUser = int64(65532)

// operatorFiles are the operator's manifests and binary: cass-operator's own kustomize output
// (config/deployments/cluster, as a user installs it) and its manager built from the module.
func operatorFiles(root string) (manifests, binary string, err error) {
	manifests = os.Getenv("CASS_OPERATOR_MANIFESTS")
	if manifests == "" {
		out, err := kube.Run(root, "make", "-s", "--no-print-directory", "cass-operator-manifests")
		if err != nil {
			return "", "", err
		}
		manifests = kube.LastLine(out)
	}
	binary = os.Getenv("CASS_OPERATOR_MANAGER")
	if binary == "" {
		out, err := kube.Run(root, filepath.Join(root, "hack", "cass-operator.sh"))
		if err != nil {
			return "", "", err
		}
		binary = kube.LastLine(out)
	}
	return manifests, binary, nil
}

// installOperator applies cass-operator's manifests but its CRDs (the control plane has them
// already, from the same version): namespace, RBAC, image ConfigMap, services, webhook
// configurations and the Deployment, whose pod the pod runner then runs. cert-manager, which
// the manifests expect, is played: each Certificate becomes its Secret, signed by a CA made
// here, and the CA is injected into the webhook configurations that ask for it, as
// cert-manager's cainjector does.
func (e *Env) installOperator(ctx context.Context, manifests string) error {
	data, err := os.ReadFile(manifests)
	if err != nil {
		return err
	}
	objs, err := decodeObjects(data)
	if err != nil {
		return fmt.Errorf("%s: %w", manifests, err)
	}
	ca, err := newCA()
	if err != nil {
		return err
	}
	services := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.GetKind() == "Service" {
			services[o.GetNamespace()+"/"+o.GetName()] = o
		}
	}
	for _, o := range objs {
		switch o.GetKind() {
		case "CustomResourceDefinition", "Issuer", "ClusterIssuer":
			continue
		case "Certificate":
			secret, err := ca.secretFor(o)
			if err != nil {
				return err
			}
			if err := e.create(ctx, secret); err != nil {
				return err
			}
			continue
		case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
			if from := o.GetAnnotations()["cert-manager.io/inject-ca-from"]; from != "" {
				if err := injectCA(o, ca.certPEM); err != nil {
					return err
				}
			}
			if err := webhooksToPod(o, services); err != nil {
				return err
			}
		}
		if err := e.create(ctx, o); err != nil {
			return err
		}
	}
	return nil
}

func (e *Env) create(ctx context.Context, o client.Object) error {
	if err := e.Client.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
	}
	return nil
}

func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// eachWebhook calls edit with each webhook of a webhook configuration, and keeps its edits.
func eachWebhook(o *unstructured.Unstructured, edit func(h map[string]any) error) error {
	hooks, _, err := unstructured.NestedSlice(o.Object, "webhooks")
	if err != nil {
		return err
	}
	for i := range hooks {
		h, ok := hooks[i].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: a webhook is not an object", o.GetName())
		}
		if err := edit(h); err != nil {
			return err
		}
	}
	return unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
}

// injectCA sets the caBundle of every webhook of a webhook configuration.
func injectCA(o *unstructured.Unstructured, caPEM []byte) error {
	return eachWebhook(o, func(h map[string]any) error {
		// caBundle is bytes, base64 in JSON.
		return unstructured.SetNestedField(h, base64.StdEncoding.EncodeToString(caPEM), "clientConfig", "caBundle")
	})
}

// webhooksToPod points each webhook that names a service at the operator pod's address and the
// service's target port, as the apiserver reaches it through the service's endpoints in a
// cluster. The played pods' addresses are loopback ones, which no EndpointSlice may hold, so
// the apiserver cannot route to the service here.
func webhooksToPod(o *unstructured.Unstructured, services map[string]*unstructured.Unstructured) error {
	return eachWebhook(o, func(h map[string]any) error {
		ns, _, _ := unstructured.NestedString(h, "clientConfig", "service", "namespace")
		name, found, _ := unstructured.NestedString(h, "clientConfig", "service", "name")
		if !found {
			return nil
		}
		path, _, _ := unstructured.NestedString(h, "clientConfig", "service", "path")
		port, found, _ := unstructured.NestedInt64(h, "clientConfig", "service", "port")
		if !found {
			port = 443
		}
		svc := services[ns+"/"+name]
		if svc == nil {
			return fmt.Errorf("webhook %s of %s names service %s/%s, which the manifests do not hold", h["name"], o.GetName(), ns, name)
		}
		target, err := targetPort(svc, port)
		if err != nil {
			return err
		}
		unstructured.RemoveNestedField(h, "clientConfig", "service")
		url := "https://" + net.JoinHostPort(podIP, strconv.FormatInt(target, 10)) + path
		return unstructured.SetNestedField(h, url, "clientConfig", "url")
	})
}

// targetPort is the numeric target port of a service's port.
func targetPort(svc *unstructured.Unstructured, port int64) (int64, error) {
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	for _, p := range ports {
		m, _ := p.(map[string]any)
		if n, _, _ := unstructured.NestedInt64(m, "port"); n != port {
			continue
		}
		switch t := m["targetPort"].(type) {
		case nil:
			return port, nil
		case int64:
			return t, nil
		case float64:
			return int64(t), nil
		default:
			return 0, fmt.Errorf("service %s: target port %v is not a number; only numbers are played", svc.GetName(), t)
		}
	}
	return 0, fmt.Errorf("service %s has no port %d", svc.GetName(), port)
}

// playedCA signs the certificates cert-manager would issue.
type playedCA struct {
	key     *ecdsa.PrivateKey
	cert    *x509.Certificate
	certPEM []byte
}

func newCA() (*playedCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "cassbench local played cert-manager CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(7 * 24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &playedCA{key: key, cert: cert, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// secretFor issues a Certificate's secret: tls.crt and tls.key for its dnsNames, and ca.crt.
func (ca *playedCA) secretFor(o *unstructured.Unstructured) (*corev1.Secret, error) {
	secretName, _, _ := unstructured.NestedString(o.Object, "spec", "secretName")
	dnsNames, _, _ := unstructured.NestedStringSlice(o.Object, "spec", "dnsNames")
	if secretName == "" || len(dnsNames) == 0 {
		return nil, fmt.Errorf("certificate %s names no secret or no DNS names", o.GetName())
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: dnsNames[0]},
		DNSNames:     dnsNames,
		// The apiserver reaches the webhook at the pod's address (webhooksToPod).
		IPAddresses: []net.IP{net.ParseIP(podIP)},
		NotBefore:   time.Now().Add(-time.Hour),
		NotAfter:    time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	s := &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{
		"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		"ca.crt":  ca.certPEM,
	}}
	s.Name, s.Namespace = secretName, o.GetNamespace()
	return s, nil
}
