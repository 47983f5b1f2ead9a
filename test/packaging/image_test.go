package packaging_test

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/cassbench/cassbench/internal/jobs"
	"github.com/cassbench/cassbench/internal/testutil/builders"
)

// hack/build.sh is what `make build` and the Dockerfile run. Its binaries must run on
// distroless/static, which has no libc and no dynamic loader: static ELF files, no cgo. The
// build settings recorded in each binary show the shared flags were applied.
func TestBinariesAreStaticAndBuiltWithTheSharedFlags(t *testing.T) {
	out := t.TempDir()
	if _, err := run(env.Root, []string{"GOOS=linux"}, filepath.Join(env.Root, "hack", "build.sh"), out); err != nil {
		t.Fatalf("hack/build.sh: %v", err)
	}
	// kubectl runs kubectl-cassbench on PATH as `kubectl cassbench`: the same binary.
	if target, err := os.Readlink(filepath.Join(out, "kubectl-cassbench")); err != nil || target != "cassbench" {
		t.Errorf("kubectl-cassbench links to %q (%v), want cassbench beside it", target, err)
	}
	for _, name := range []string{"manager", "cassbench", "cassbench-writer"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(out, name)
			f, err := elf.Open(path)
			if err != nil {
				t.Fatalf("%s is not an ELF file: %v", path, err)
			}
			defer f.Close()
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
					t.Errorf("%s has a %s program header: dynamically linked", name, p.Type)
				}
			}
			for _, section := range []string{".interp", ".dynamic", ".symtab", ".debug_info"} {
				if f.Section(section) != nil {
					t.Errorf("%s has a %s section", name, section)
				}
			}
			if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
				t.Errorf("%s imports %v", name, libs)
			}

			info, err := buildinfo.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Path != "github.com/cassbench/cassbench/cmd/"+name {
				t.Errorf("%s was built from %s", name, info.Path)
			}
			settings := map[string]string{}
			for _, s := range info.Settings {
				settings[s.Key] = s.Value
			}
			// With -trimpath, Go does not record -ldflags; the missing .symtab (-s) and
			// .debug_info (-w) sections above show them.
			for key, want := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true"} {
				if settings[key] != want {
					t.Errorf("%s built with %s=%q, want %q", name, key, settings[key], want)
				}
			}
		})
	}
}

// dockerfile is the part of the Dockerfile the manifests depend on.
type dockerfile struct {
	stages []stage
}

type stage struct {
	from         string
	name         string
	instructions [][2]string // instruction, arguments
}

// parseDockerfile reads instructions, joining continuation lines and dropping comments. It
// understands what this Dockerfile uses, not the whole syntax.
func parseDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(env.Root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var d dockerfile
	var logical string
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && logical == "") {
			continue
		}
		if rest, ok := strings.CutSuffix(trimmed, "\\"); ok {
			logical += rest + " "
			continue
		}
		logical += trimmed
		instr, args, _ := strings.Cut(strings.TrimSpace(logical), " ")
		logical = ""
		instr = strings.ToUpper(instr)
		args = strings.Join(strings.Fields(args), " ")
		if instr == "FROM" {
			fields := strings.Fields(args)
			fields = slices.DeleteFunc(fields, func(f string) bool { return strings.HasPrefix(f, "--") })
			s := stage{from: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				s.name = fields[2]
			}
			d.stages = append(d.stages, s)
			continue
		}
		if len(d.stages) == 0 {
			t.Fatalf("Dockerfile: %s before FROM", instr)
		}
		last := &d.stages[len(d.stages)-1]
		last.instructions = append(last.instructions, [2]string{instr, args})
	}
	return d
}

func (s stage) all(instr string) []string {
	var out []string
	for _, i := range s.instructions {
		if i[0] == instr {
			out = append(out, i[1])
		}
	}
	return out
}

// The image's user and paths are assumed by the manifests: the Deployment's runAsUser and
// command (config/manager and the chart), the setup and writer pods' runAsUser and command
// (internal/jobs). A change on either side alone breaks pods at run time, so it fails here.
func TestDockerfileMatchesManifestsAndJobs(t *testing.T) {
	d := parseDockerfile(t)
	if len(d.stages) != 2 {
		t.Fatalf("Dockerfile has %d stages, want a builder and the runtime", len(d.stages))
	}
	builder, runtime := d.stages[0], d.stages[1]

	// The builder's Go must be able to build go.mod's language version.
	goMod, err := os.ReadFile(filepath.Join(env.Root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(goMod)
	if goVersion == nil || builder.from != "golang:"+string(goVersion[1]) {
		t.Errorf("builder FROM %s, want golang:%s (go.mod's go directive)", builder.from, goVersion[1])
	}
	if !slices.ContainsFunc(builder.all("RUN"), func(r string) bool { return strings.Contains(r, "hack/build.sh /out") }) {
		t.Errorf("builder does not run hack/build.sh /out, the build make build uses: %v", builder.all("RUN"))
	}

	if runtime.from != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("runtime FROM %s", runtime.from)
	}
	users := runtime.all("USER")
	if len(users) != 1 {
		t.Fatalf("runtime USER %v, want one", users)
	}
	uid, gid, _ := strings.Cut(users[0], ":")
	copied := map[string]bool{}
	for _, c := range runtime.all("COPY") {
		fields := strings.Fields(c)
		if len(fields) == 3 && fields[0] == "--from="+builder.name {
			copied[fields[2]] = true
		}
	}
	entrypoint := runtime.all("ENTRYPOINT")
	if !slices.Equal(entrypoint, []string{`["/manager"]`}) {
		t.Errorf(`ENTRYPOINT %v, want ["/manager"]`, entrypoint)
	}

	// The manager Deployment, as both install paths render it.
	deployments := map[string]*unstructured.Unstructured{
		"config/default": find(t, renderKustomize(t), "Deployment", "cassbench-manager"),
		"chart":          find(t, renderChart(t, "cassbench", "cassbench-system", ""), "Deployment", "cassbench-manager"),
	}
	for source, dep := range deployments {
		for field, want := range map[string]string{"runAsUser": uid, "runAsGroup": gid} {
			got, _, _ := unstructured.NestedInt64(dep.Object, "spec", "template", "spec", "securityContext", field)
			if want == "" || got == 0 || want != itoa(got) {
				t.Errorf("%s: manager %s %d, image USER %s", source, field, got, users[0])
			}
		}
		command := managerContainer(t, dep).command
		if len(command) != 1 || !copied[command[0]] {
			t.Errorf("%s: manager command %v is not a binary the image holds (%v)", source, command, copied)
		}
		if len(command) == 1 && command[0] != "/manager" {
			t.Errorf("%s: manager command %v, want the image's entrypoint /manager", source, command)
		}
	}

	// The setup and writer pods internal/jobs builds: setup runs the CLI, writers the writer
	// binary.
	run := builders.MakeBenchmarkRun("r", "ns").Datacenter("dc1").Writers(2).Duration(time.Minute).Obj()
	target := jobs.Target{Image: "x", Host: "h", Port: 9042, CassandraDatacenter: "dc1", Nodes: 1}
	setup, err := jobs.Setup(run, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	writers, err := jobs.Writers(run, target, 0)
	if err != nil {
		t.Fatal(err)
	}
	commands := map[string]string{"setup": "/cassbench", "writer": "/cassbench-writer"}
	for name, pod := range map[string]corev1.PodSpec{"setup": setup.Spec.Template.Spec, "writer": writers.Spec.Template.Spec} {
		sc := pod.SecurityContext
		if sc == nil || sc.RunAsUser == nil || itoa(*sc.RunAsUser) != uid || sc.RunAsGroup == nil || itoa(*sc.RunAsGroup) != gid {
			t.Errorf("%s pods run as %+v, image USER %s", name, sc, users[0])
		}
		for _, c := range pod.Containers {
			if len(c.Command) == 0 || !copied[c.Command[0]] || c.Command[0] != commands[name] {
				t.Errorf("%s container runs %v; the image holds %v", name, c.Command, copied)
			}
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The builder copies only some directories into the build context (.dockerignore) and the
// image (COPY). A new package directory the binaries import, outside those, would break only
// the Docker build, which this machine cannot run: so compare with what `go list` says.
func TestDockerBuildContextHoldsEverythingTheBinariesImport(t *testing.T) {
	out, err := run(env.Root, nil, "go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cmd/manager", "./cmd/cassbench", "./cmd/cassbench-writer")
	if err != nil {
		t.Fatal(err)
	}
	needed := map[string]bool{}
	for _, dir := range strings.Fields(out) {
		rel, err := filepath.Rel(env.Root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a module dependency, fetched by go mod download
		}
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		needed[top] = true
	}
	if len(needed) == 0 {
		t.Fatal("go list found no package of this module")
	}

	ignore, err := os.ReadFile(filepath.Join(env.Root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, line := range strings.Split(string(ignore), "\n") {
		if dir, ok := strings.CutPrefix(strings.TrimSpace(line), "!"); ok {
			allowed[strings.TrimSuffix(dir, "/")] = true
		}
	}
	copied := map[string]bool{}
	for _, c := range parseDockerfile(t).stages[0].all("COPY") {
		fields := strings.Fields(c)
		for _, src := range fields[:len(fields)-1] {
			copied[strings.TrimSuffix(src, "/")] = true
		}
	}
	for _, file := range []string{"go.mod", "go.sum", "hack/build.sh"} {
		if !allowed[file] || !copied[file] {
			t.Errorf("%s: in the build context %v, copied %v", file, allowed[file], copied[file])
		}
	}
	for dir := range needed {
		if !allowed[dir] || !copied[dir] {
			t.Errorf("the binaries import packages under %s/: in the build context %v (.dockerignore), copied %v (Dockerfile)",
				dir, allowed[dir], copied[dir])
		}
	}
}
