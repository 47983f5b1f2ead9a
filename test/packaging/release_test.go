package packaging_test

import (
	"context"
	"debug/buildinfo"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/cassbench/cassbench/internal/testutil/registry"
)

// releaseTools are the paths `make release-tools` prints, in its order.
type releaseTools struct {
	helm, registry, krew, validateKrewManifest, cyclonedxGomod string
}

func buildReleaseTools(t *testing.T) releaseTools {
	t.Helper()
	out, err := run(env.Root, nil, "make", "-s", "--no-print-directory", "release-tools")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(out)
	if len(lines) < 5 {
		t.Fatalf("make release-tools printed %q, want five paths", out)
	}
	p := lines[len(lines)-5:]
	return releaseTools{helm: p[0], registry: p[1], krew: p[2], validateKrewManifest: p[3], cyclonedxGomod: p[4]}
}

// startRegistry starts the CNCF distribution registry on 127.0.0.1, storing in a directory of
// the test's, and returns its host:port; it is stopped when the test ends.
func startRegistry(t *testing.T, binary string) string {
	t.Helper()
	r, err := registry.Start(context.Background(), binary, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Stop()
		if t.Failed() {
			b, _ := os.ReadFile(r.Log())
			t.Logf("registry log:\n%s", b)
		}
	})
	return r.Addr
}

// `make release` (hack/release.sh) as a tag's workflow runs it, for the image's two platforms,
// against a real registry on 127.0.0.1: the image index comes back by digest with both
// platforms, the Dockerfile's user and entrypoint, nothing but the expected files, and runs
// its three programs as the pods' securityContext runs them; the chart comes back from oci://
// by its version, renders as the chart directory does, and names the image by a tag (its
// appVersion) that resolves to the pushed digest; every file is in checksums.txt; the krew
// manifest passes krew's validator and krew installs a working plugin from it; each SBOM
// (binaries' and images') lists every module the binaries were built with, at its version;
// the notes are CHANGELOG.md's section.
func TestReleaseToALocalRegistry(t *testing.T) {
	tools := buildReleaseTools(t)
	reg := startRegistry(t, tools.registry)
	chart := chartMetadata(t)
	version := chart.AppVersion
	out := filepath.Join(t.TempDir(), "release")
	helmHome := t.TempDir()
	helmEnv := []string{"HELM_CACHE_HOME=" + filepath.Join(helmHome, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(helmHome, "config"), "HELM_DATA_HOME=" + filepath.Join(helmHome, "data")}
	if _, err := run(env.Root, append([]string{"OUT=" + out, "PLATFORMS=" + strings.Join(imagePlatforms, " "), "REGISTRY=" + reg,
		"PLAIN_HTTP=1", "HELM=" + tools.helm, "CYCLONEDX_GOMOD=" + tools.cyclonedxGomod}, helmEnv...),
		filepath.Join(env.Root, "hack", "release.sh")); err != nil {
		t.Fatal(err)
	}

	// The image: pulled back by digest, then checked as a user runs it.
	var img pulledImage
	imageDir := t.TempDir()
	t.Run("image by digest", func(t *testing.T) { img = pullReleasedImage(t, reg, out, version, imageDir) })
	t.Run("image files", func(t *testing.T) { checkImageFiles(t, img.need(t)) })
	t.Run("image runs as users run it", func(t *testing.T) {
		checkImageRunsAsUsersRunIt(t, img.need(t), hostPlatform(t), version)
	})
	t.Run("image sbom", func(t *testing.T) { checkImageSBOMs(t, out, img.need(t)) })
	t.Run("chart names the image", func(t *testing.T) {
		checkChartNamesTheImage(t, tools.helm, helmEnv, reg, version, img.need(t))
	})

	t.Run("checksums", func(t *testing.T) {
		if sums, err := run(out, nil, "sha256sum", "--check", "--strict", "checksums.txt"); err != nil {
			t.Fatalf("%v\n%s", err, sums)
		}
		listed, _ := os.ReadFile(filepath.Join(out, "checksums.txt"))
		for _, f := range []string{"cassbench-" + version + ".tgz", "cassbench.yaml", "RELEASE_NOTES.md",
			"kubectl-cassbench_" + version + "_linux_amd64.tar.gz", "sbom/manager_linux_amd64.cdx.json",
			"image.txt", "sbom/image_linux_amd64.cdx.json", "sbom/image_linux_arm64.cdx.json"} {
			if !strings.Contains(string(listed), "  "+f+"\n") {
				t.Errorf("checksums.txt does not list %s:\n%s", f, listed)
			}
		}
	})

	t.Run("chart from oci", func(t *testing.T) {
		ref := "oci://" + reg + "/charts/cassbench"
		shown, err := run(env.Root, helmEnv, tools.helm, "show", "chart", ref, "--version", version, "--plain-http")
		if err != nil {
			t.Fatal(err)
		}
		var pulled chartMeta
		if err := yaml.Unmarshal([]byte(shown), &pulled); err != nil {
			t.Fatal(err)
		}
		if pulled != (chartMeta{Version: version, AppVersion: version}) {
			t.Errorf("the pushed chart is %+v, want version and appVersion %s", pulled, version)
		}
		fromRegistry, err := run(env.Root, helmEnv, tools.helm, "template", "cassbench", ref, "--version", version,
			"--plain-http", "--namespace", "cassbench-system", "--include-crds")
		if err != nil {
			t.Fatal(err)
		}
		fromDir, err := run(env.Root, helmEnv, tools.helm, "template", "cassbench", "charts/cassbench",
			"--namespace", "cassbench-system", "--include-crds")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromDir, fromRegistry); diff != "" {
			t.Errorf("the chart from %s renders otherwise than charts/cassbench (-dir +registry):\n%s", ref, diff)
		}
	})

	t.Run("krew", func(t *testing.T) {
		manifest := filepath.Join(out, "cassbench.yaml")
		// The validator's own install step downloads each platform's archive from its URI;
		// with no network here, krew installs this platform's from the file instead, below,
		// and the checks the validator would make after it (a LICENSE extracted) are made there.
		if msg, err := run(out, nil, tools.validateKrewManifest, "-manifest", manifest, "-skip-install"); err != nil {
			t.Fatalf("validate-krew-manifest: %v\n%s", err, msg)
		}
		root := t.TempDir()
		archive := filepath.Join(out, "kubectl-cassbench_"+version+"_linux_amd64.tar.gz")
		if msg, err := run(out, []string{"KREW_ROOT=" + root, "KREW_NO_UPGRADE_CHECK=1"}, tools.krew,
			"install", "--manifest="+manifest, "--archive="+archive); err != nil {
			t.Fatalf("krew install: %v\n%s", err, msg)
		}
		licenses, _ := filepath.Glob(filepath.Join(root, "store", "cassbench", "v"+version, "LICENSE"))
		if len(licenses) != 1 {
			t.Errorf("krew extracted no LICENSE into %s", filepath.Join(root, "store", "cassbench", "v"+version))
		}
		got, err := run(out, nil, filepath.Join(root, "bin", "kubectl-cassbench"), "version", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var info struct{ Version string }
		if err := json.Unmarshal([]byte(got), &info); err != nil || info.Version != version {
			t.Errorf("the plugin krew installed reports %q (%v), want version %s", got, err, version)
		}
	})

	t.Run("sbom", func(t *testing.T) {
		for _, b := range []string{"manager", "cassbench", "cassbench-writer"} {
			info, err := buildinfo.ReadFile(filepath.Join(out, "bin", "linux_amd64", b))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(out, "sbom", b+"_linux_amd64.cdx.json"))
			if err != nil {
				t.Fatal(err)
			}
			var bom struct {
				Components []struct{ Name, Version string }
			}
			if err := json.Unmarshal(raw, &bom); err != nil {
				t.Fatal(err)
			}
			listed := map[string]string{}
			for _, c := range bom.Components {
				listed[c.Name] = c.Version
			}
			for _, dep := range info.Deps {
				if dep.Replace != nil {
					dep = dep.Replace
				}
				if listed[dep.Path] != dep.Version {
					t.Errorf("%s's SBOM lists %s at %q, the binary was built with %s", b, dep.Path, listed[dep.Path], dep.Version)
				}
			}
		}
	})

	t.Run("notes", func(t *testing.T) {
		notes, err := os.ReadFile(filepath.Join(out, "RELEASE_NOTES.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(notes), "### Added") || strings.Contains(string(notes), "## [") {
			t.Errorf("RELEASE_NOTES.md is not CHANGELOG.md's section for %s alone:\n%s", version, notes)
		}
	})
}

// A release refuses a version CHANGELOG.md does not describe, and one that is no semantic
// version, before it builds anything.
func TestReleaseRefusesAVersionWithoutNotes(t *testing.T) {
	for version, want := range map[string]string{
		"9.9.9": "CHANGELOG.md has no section '## [9.9.9] - DATE'",
		"v1.0":  "VERSION v1.0 is not a semantic version",
	} {
		out, err := run(env.Root, []string{"VERSION=" + version, "OUT=" + t.TempDir(), "HELM=helm", "CYCLONEDX_GOMOD=x"},
			filepath.Join(env.Root, "hack", "release.sh"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("VERSION=%s: %v (%s), want an error saying %q", version, err, out, want)
		}
	}
}
