package kube

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// DecodeYAML splits a multi-document YAML stream (rendered manifests, a sample file) into
// objects, skipping empty documents and failing the test on a document without apiVersion
// and kind. source names the stream in failure messages.
func DecodeYAML(tb testing.TB, source string, data []byte) []*unstructured.Unstructured {
	tb.Helper()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			tb.Fatalf("reading %s: %v", source, err)
		}
		obj := &unstructured.Unstructured{}
		if err := utilyaml.Unmarshal(doc, &obj.Object); err != nil {
			tb.Fatalf("decoding %s: %v\n%s", source, err, doc)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if obj.GetKind() == "" || obj.GetAPIVersion() == "" {
			tb.Fatalf("%s: a document without apiVersion and kind: %s", source, doc)
		}
		objs = append(objs, obj)
	}
}
