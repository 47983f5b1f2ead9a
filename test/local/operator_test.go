package local

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestWebhooksToPod: a webhook naming a service is pointed at the operator pod's address and
// the service's target port, keeping its path; one naming an unknown service or port is an
// error, not a webhook the apiserver cannot reach.
func TestWebhooksToPod(t *testing.T) {
	svc := &unstructured.Unstructured{Object: map[string]any{
		"kind":     "Service",
		"metadata": map[string]any{"name": "cass-operator-webhook-service", "namespace": "cass-operator"},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(443), "targetPort": int64(9443)}}},
	}}
	services := map[string]*unstructured.Unstructured{"cass-operator/cass-operator-webhook-service": svc}
	hook := func(name string, port any) *unstructured.Unstructured {
		service := map[string]any{"name": name, "namespace": "cass-operator", "path": "/validate-cassandradatacenter"}
		if port != nil {
			service["port"] = port
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"kind":     "ValidatingWebhookConfiguration",
			"metadata": map[string]any{"name": "cass-operator-validating-webhook-configuration"},
			"webhooks": []any{map[string]any{"name": "vcassandradatacenter.kb.io", "clientConfig": map[string]any{"service": service, "caBundle": "Q0E="}}},
		}}
	}
	cases := map[string]struct {
		obj     *unstructured.Unstructured
		wantURL string
		wantErr string
	}{
		"default port 443":   {obj: hook("cass-operator-webhook-service", nil), wantURL: "https://127.0.0.1:9443/validate-cassandradatacenter"},
		"explicit port 443":  {obj: hook("cass-operator-webhook-service", int64(443)), wantURL: "https://127.0.0.1:9443/validate-cassandradatacenter"},
		"a port not served":  {obj: hook("cass-operator-webhook-service", int64(8443)), wantErr: "has no port 8443"},
		"an unknown service": {obj: hook("other", nil), wantErr: "which the manifests do not hold"},
	}
	for name, tc := range cases {
		err := webhooksToPod(tc.obj, services)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", name, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		hooks, _, _ := unstructured.NestedSlice(tc.obj.Object, "webhooks")
		cc := hooks[0].(map[string]any)["clientConfig"].(map[string]any)
		if cc["url"] != tc.wantURL || cc["service"] != nil || cc["caBundle"] != "Q0E=" {
			t.Errorf("%s: clientConfig %v, want url %s, no service, caBundle kept", name, cc, tc.wantURL)
		}
	}
}
