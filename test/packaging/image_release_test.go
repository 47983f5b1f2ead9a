package packaging_test

import (
	"archive/tar"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// imagePlatforms are the image's platforms, as the tag's workflow releases them.
var imagePlatforms = []string{"linux/amd64", "linux/arm64"}

// pulledImage is the release's image as the test pulled it back from the registry.
type pulledImage struct {
	repository, digest string
	// roots are each platform's files, extracted from its layer; entries what the layer said
	// of each (type, mode, owner).
	roots   map[string]string
	entries map[string]map[string]tarEntry
	configs map[string]ociImageConfig
	// manifests are the platforms' manifest digests.
	manifests map[string]string
}

// need fails the test unless every platform's image was pulled.
func (img pulledImage) need(t *testing.T) pulledImage {
	t.Helper()
	for _, p := range imagePlatforms {
		if img.roots[p] == "" {
			t.Fatalf("the %s image was not pulled (see the image by digest test)", p)
		}
	}
	return img
}

// pullReleasedImage reads image.txt (REPOSITORY:VERSION@DIGEST), checks that the tag is the
// chart's appVersion and points at that digest, pulls the index by digest and each platform's
// manifest, config and layer by theirs, and checks the config against the Dockerfile. Each
// platform's files are extracted under dir, which outlives the subtest.
func pullReleasedImage(t *testing.T, reg, out, version, dir string) pulledImage {
	t.Helper()
	line, err := os.ReadFile(filepath.Join(out, "image.txt"))
	if err != nil {
		t.Fatal(err)
	}
	ref, digest, ok := strings.Cut(strings.TrimSpace(string(line)), "@")
	repository, tag, ok2 := strings.Cut(ref, ":"+version)
	if !ok || !ok2 || tag != "" || repository != reg+"/cassbench" {
		t.Fatalf("image.txt says %q, want %s/cassbench:%s@DIGEST", line, reg, version)
	}
	c := registryClient{addr: reg, repo: "cassbench"}
	body, header := c.get(t, "manifests", version, ociIndexType)
	if got := header.Get("Docker-Content-Digest"); got != digest || sha256Digest(body) != digest {
		t.Errorf("tag %s (the chart's appVersion) resolves to %s (body %s), image.txt says %s", version, got, sha256Digest(body), digest)
	}

	var idx ociIndex
	mustUnmarshal(t, "the index", c.byDigest(t, "manifests", digest, ociIndexType), &idx)
	if idx.SchemaVersion != 2 || idx.MediaType != ociIndexType {
		t.Errorf("the index is schema %d, media type %q; want an OCI image index", idx.SchemaVersion, idx.MediaType)
	}
	if idx.Annotations["org.opencontainers.image.version"] != version {
		t.Errorf("the index's annotations %v name another version than %s", idx.Annotations, version)
	}
	d := parseDockerfile(t)
	runtimeStage := d.stages[len(d.stages)-1]
	var entrypoint []string
	if e := runtimeStage.all("ENTRYPOINT"); len(e) != 1 || json.Unmarshal([]byte(e[0]), &entrypoint) != nil {
		t.Fatalf("Dockerfile ENTRYPOINT %v is not one exec form", e)
	}
	users := runtimeStage.all("USER")

	img := pulledImage{repository: repository, digest: digest, roots: map[string]string{},
		entries: map[string]map[string]tarEntry{}, configs: map[string]ociImageConfig{}, manifests: map[string]string{}}
	for _, m := range idx.Manifests {
		if m.Platform == nil || m.MediaType != ociManifestType {
			t.Errorf("index entry %+v is no platform's OCI manifest", m)
			continue
		}
		platform := m.Platform.OS + "/" + m.Platform.Architecture
		img.manifests[platform] = m.Digest
		var man ociManifest
		mustUnmarshal(t, platform+"'s manifest", c.byDigest(t, "manifests", m.Digest, ociManifestType), &man)
		var cfg ociImageConfig
		mustUnmarshal(t, platform+"'s config", c.byDigest(t, "blobs", man.Config.Digest, ""), &cfg)
		img.configs[platform] = cfg
		if cfg.OS+"/"+cfg.Architecture != platform {
			t.Errorf("%s's config is for %s/%s", platform, cfg.OS, cfg.Architecture)
		}
		if len(users) != 1 || cfg.Config.User != users[0] || cfg.Config.User != "65532:65532" {
			t.Errorf("%s runs as %q, the Dockerfile's USER is %v: want 65532:65532", platform, cfg.Config.User, users)
		}
		if !slices.Equal(cfg.Config.Entrypoint, entrypoint) {
			t.Errorf("%s's entrypoint is %v, the Dockerfile's %v", platform, cfg.Config.Entrypoint, entrypoint)
		}
		if cfg.Config.Labels["org.opencontainers.image.version"] != version {
			t.Errorf("%s's labels %v name another version than %s", platform, cfg.Config.Labels, version)
		}
		if len(man.Layers) != 1 || man.Layers[0].MediaType != ociLayerType || len(cfg.RootFS.DiffIDs) != 1 {
			t.Fatalf("%s has layers %+v, diff_ids %v: want one gzip'd OCI layer", platform, man.Layers, cfg.RootFS.DiffIDs)
		}
		root := filepath.Join(dir, m.Platform.OS+"_"+m.Platform.Architecture)
		entries, err := extractLayer(c.byDigest(t, "blobs", man.Layers[0].Digest, ""), root, cfg.RootFS.DiffIDs[0])
		if err != nil {
			t.Fatalf("%s's layer: %v", platform, err)
		}
		img.roots[platform], img.entries[platform] = root, entries
	}
	if got := slices.Sorted(maps.Keys(img.roots)); !slices.Equal(got, imagePlatforms) {
		t.Errorf("the index holds %v, want %v", got, imagePlatforms)
	}
	return img
}

// checkImageFiles fails for any file the image holds beyond the binaries and the base's files
// (CA bundle, time zones, passwd and group, the empty home, /tmp and /root), for a set-id bit
// anywhere, and for binaries built for another architecture than their manifest's.
func checkImageFiles(t *testing.T, img pulledImage) {
	// type, mode and owner of each path but the time zones.
	want := map[string]string{
		"manager": "f 755 0:0", "cassbench": "f 755 0:0", "cassbench-writer": "f 755 0:0",
		"etc": "d 755 0:0", "etc/passwd": "f 644 0:0", "etc/group": "f 644 0:0", "etc/nsswitch.conf": "f 644 0:0",
		"etc/ssl": "d 755 0:0", "etc/ssl/certs": "d 755 0:0", "etc/ssl/certs/ca-certificates.crt": "f 644 0:0",
		"home": "d 755 0:0", "home/nonroot": "d 700 65532:65532", "root": "d 700 0:0", "tmp": "d 1777 0:0",
		"usr": "d 755 0:0", "usr/share": "d 755 0:0", "usr/share/zoneinfo": "d 755 0:0",
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	for platform, entries := range img.entries {
		got := map[string]string{}
		for name, e := range entries {
			kind := map[byte]string{tar.TypeDir: "d", tar.TypeReg: "f", tar.TypeSymlink: "l", tar.TypeLink: "h"}[e.typ]
			desc := fmt.Sprintf("%s %o %d:%d", kind, e.mode&0o7777, e.uid, e.gid)
			if e.mode&0o6000 != 0 {
				t.Errorf("%s: /%s has a set-id bit (%s)", platform, name, desc)
			}
			if strings.HasPrefix(name, "usr/share/zoneinfo/") {
				if kind == "f" && e.mode&0o111 != 0 || e.uid != 0 || e.gid != 0 {
					t.Errorf("%s: time zone file /%s is %s", platform, name, desc)
				}
				continue
			}
			got[name] = desc
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s holds other files than the binaries and the base's (-want +got):\n%s", platform, diff)
		}
		arch := strings.TrimPrefix(platform, "linux/")
		for _, b := range []string{"manager", "cassbench", "cassbench-writer"} {
			path := filepath.Join(img.roots[platform], b)
			f, err := elf.Open(path)
			if err != nil {
				t.Errorf("%s: /%s: %v", platform, b, err)
				continue
			}
			if f.Machine != machine[arch] {
				t.Errorf("%s: /%s is built for %v", platform, b, f.Machine)
			}
			_ = f.Close()
			if info, err := buildinfo.ReadFile(path); err != nil || !slices.Contains(info.Settings, debug.BuildSetting{Key: "GOARCH", Value: arch}) {
				t.Errorf("%s: /%s's build information does not say GOARCH=%s (%v)", platform, b, arch, err)
			}
		}
	}
}

// checkChartNamesTheImage renders the chart pulled from oci:// with the release's repository
// and checks that the manager's image, the chart's appVersion as the tag, resolves in the
// registry to the digest image.txt gives.
func checkChartNamesTheImage(t *testing.T, helm string, helmEnv []string, reg, version string, img pulledImage) {
	rendered, err := run(env.Root, helmEnv, helm, "template", "cassbench", "oci://"+reg+"/charts/cassbench", "--version", version,
		"--plain-http", "--namespace", "cassbench-system", "--set", "image.repository="+img.repository,
		"--show-only", "templates/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var dep appsv1.Deployment
	if err := yaml.Unmarshal([]byte(rendered), &dep); err != nil {
		t.Fatal(err)
	}
	if len(dep.Spec.Template.Spec.Containers) == 0 {
		t.Fatalf("the chart's Deployment has no container:\n%s", rendered)
	}
	image := dep.Spec.Template.Spec.Containers[0].Image
	if image != img.repository+":"+version {
		t.Fatalf("the chart runs %s, want the release's %s:%s", image, img.repository, version)
	}
	_, header := registryClient{addr: reg, repo: "cassbench"}.get(t, "manifests", strings.TrimPrefix(image, img.repository+":"), ociIndexType)
	if got := header.Get("Docker-Content-Digest"); got != img.digest {
		t.Errorf("the chart's image %s resolves to %s, the release pushed %s", image, got, img.digest)
	}
}

// hostPlatform is the image platform this machine runs.
func hostPlatform(t *testing.T) string {
	p := "linux/" + runtime.GOARCH
	if runtime.GOOS != "linux" || !slices.Contains(imagePlatforms, p) {
		t.Skipf("the image is for %v; this machine is %s/%s", imagePlatforms, runtime.GOOS, runtime.GOARCH)
	}
	return p
}

// lookPaths fails the test unless every tool is on PATH.
func lookPaths(t *testing.T, tools ...string) {
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s (util-linux) is not on PATH: %v", tool, err)
		}
	}
}

// checkImageSBOMs reads each platform's image SBOM from the release and checks it against the
// image pulled back: it names that platform's manifest by digest, and lists every module each
// of the image's binaries was built with (read from the pulled binaries' build information),
// and the Debian packages of the base.
func checkImageSBOMs(t *testing.T, out string, img pulledImage) {
	for platform, root := range img.roots {
		name := "image_" + strings.ReplaceAll(platform, "/", "_") + ".cdx.json"
		raw, err := os.ReadFile(filepath.Join(out, "sbom", name))
		if err != nil {
			t.Error(err)
			continue
		}
		var bom struct {
			BOMFormat, SpecVersion string
			Metadata               struct {
				Component struct {
					Type, Name, Purl string
					Hashes           []struct{ Alg, Content string }
				}
			}
			Components []struct{ Type, Name, Version, Purl string }
		}
		mustUnmarshal(t, name, raw, &bom)
		c := bom.Metadata.Component
		digest := img.manifests[platform]
		if bom.BOMFormat != "CycloneDX" || c.Type != "container" || len(c.Hashes) != 1 ||
			"sha256:"+c.Hashes[0].Content != digest || !strings.Contains(c.Purl, strings.ReplaceAll(digest, ":", "%3A")) {
			t.Errorf("%s describes %+v (%s %s), want the container %s", name, c, bom.BOMFormat, bom.SpecVersion, digest)
		}
		listed := map[string]bool{}
		for _, comp := range bom.Components {
			listed[comp.Name+"@"+comp.Version] = true
		}
		for _, b := range []string{"manager", "cassbench", "cassbench-writer"} {
			info, err := buildinfo.ReadFile(filepath.Join(root, b))
			if err != nil {
				t.Fatal(err)
			}
			for _, dep := range info.Deps {
				if dep.Replace != nil {
					dep = dep.Replace
				}
				if !listed[dep.Path+"@"+dep.Version] {
					t.Errorf("%s does not list %s@%s, which the image's /%s was built with", name, dep.Path, dep.Version, b)
				}
			}
		}
		for _, pkg := range []string{"ca-certificates", "tzdata"} {
			if !slices.ContainsFunc(bom.Components, func(c struct{ Type, Name, Version, Purl string }) bool {
				return c.Name == pkg && c.Version != "" && strings.HasPrefix(c.Purl, "pkg:deb/debian/"+pkg+"@")
			}) {
				t.Errorf("%s does not list Debian's %s, which the base's files come from", name, pkg)
			}
		}
	}
}
