package controllers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// argoHealth runs docs/argocd/health.lua on an object as Argo CD does (the object as a Lua
// table in the global obj) and returns the status and message it gives.
func argoHealth(t *testing.T, o client.Object) (string, string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(env.Root, "docs", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	L := lua.NewState()
	defer L.Close()
	L.SetGlobal("obj", toLua(L, u))
	if err := L.DoString(string(script)); err != nil {
		t.Fatalf("health.lua: %v", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health.lua returned %s", L.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
}

func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, x := range v {
			t.RawSetString(k, toLua(L, x))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, x := range v {
			t.Append(toLua(L, x))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	}
	return lua.LString("")
}

// The health check shipped in the docs is the one tested here.
func TestArgoHealthCheckIsTheDocumentedOne(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(env.Root, "docs", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(env.Root, "docs", "datacenter-lifecycle.md"))
	if err != nil {
		t.Fatal(err)
	}
	var indented []string
	for _, line := range strings.Split(strings.TrimRight(string(script), "\n"), "\n") {
		if line != "" {
			line = "    " + line
		}
		indented = append(indented, line)
	}
	if n := strings.Count(string(doc), strings.Join(indented, "\n")); n != 2 {
		t.Errorf("docs/datacenter-lifecycle.md embeds docs/argocd/health.lua %d times, want 2 (one per kind)", n)
	}
}
