package packaging_test

import (
	"crypto/x509"
	"debug/buildinfo"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// imageConfig is the part of an image's configuration hack/cassbench-image.sh writes.
type imageConfig struct {
	User       string
	Entrypoint []string
	WorkingDir string
	Env        []string
}

// hack/cassbench-image.sh assembles, with no registry, the image the Dockerfile builds on a
// connected machine (the kind workflow here loads it). Its layout must be the Dockerfile's:
// the same binaries at the same paths, the same USER and ENTRYPOINT, and from its base what
// distroless/static-debian12:nonroot gives the binaries (CA bundle, time zones, the nonroot
// user). A change to the Dockerfile alone fails here.
func TestAssembledImageHasTheDockerfilesLayout(t *testing.T) {
	d := parseDockerfile(t)
	builder, runtime := d.stages[0], d.stages[len(d.stages)-1]
	out := t.TempDir()
	if _, err := run(env.Root, nil, filepath.Join(env.Root, "hack", "cassbench-image.sh"), "layout", out); err != nil {
		t.Fatalf("hack/cassbench-image.sh layout: %v", err)
	}
	root := filepath.Join(out, "rootfs")
	var cfg imageConfig
	data, err := os.ReadFile(filepath.Join(out, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("config.json: %v", err)
	}

	if users := runtime.all("USER"); len(users) != 1 || cfg.User != users[0] {
		t.Errorf("assembled USER %q, Dockerfile USER %v", cfg.User, users)
	}
	var entrypoint []string
	if e := runtime.all("ENTRYPOINT"); len(e) != 1 || json.Unmarshal([]byte(e[0]), &entrypoint) != nil {
		t.Fatalf("Dockerfile ENTRYPOINT %v is not one exec form", e)
	}
	if !slices.Equal(cfg.Entrypoint, entrypoint) {
		t.Errorf("assembled ENTRYPOINT %v, Dockerfile %v", cfg.Entrypoint, entrypoint)
	}

	// Every file the Dockerfile copies from the builder, built from the command of that name;
	// nothing else at the top but the base's directories.
	top := map[string]bool{"etc": true, "usr": true, "tmp": true, "home": true, "root": true}
	for _, c := range runtime.all("COPY") {
		fields := strings.Fields(c)
		if len(fields) != 3 || fields[0] != "--from="+builder.name {
			t.Errorf("COPY %s: the assembled image only knows copies from the builder", c)
			continue
		}
		dest := filepath.Join(root, fields[2])
		info, err := os.Stat(dest)
		if err != nil {
			t.Errorf("COPY %s: %v", c, err)
			continue
		}
		if info.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", fields[2], info.Mode())
		}
		bi, err := buildinfo.ReadFile(dest)
		if err != nil {
			t.Errorf("%s: %v", fields[2], err)
		} else if want := "github.com/cassbench/cassbench/cmd/" + filepath.Base(fields[1]); bi.Path != want {
			t.Errorf("%s was built from %s, want %s (the builder's %s)", fields[2], bi.Path, want, fields[1])
		}
		top[strings.TrimPrefix(fields[2], "/")] = true
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !top[e.Name()] {
			t.Errorf("the assembled image holds /%s, which neither the Dockerfile nor its base has", e.Name())
		}
	}

	// The base: the USER's uid is distroless's nonroot, with its home.
	uid, _, _ := strings.Cut(cfg.User, ":")
	passwd, err := os.ReadFile(filepath.Join(root, "etc", "passwd"))
	if err != nil {
		t.Fatal(err)
	}
	var home string
	for _, line := range strings.Split(string(passwd), "\n") {
		f := strings.Split(line, ":")
		if len(f) == 7 && f[2] == uid {
			if f[0] != "nonroot" {
				t.Errorf("uid %s is %q in /etc/passwd, want distroless's nonroot", uid, f[0])
			}
			home = f[5]
		}
	}
	if home == "" || home != cfg.WorkingDir {
		t.Errorf("uid %s has home %q, working directory %q: want both /home/nonroot", uid, home, cfg.WorkingDir)
	}
	if info, err := os.Stat(filepath.Join(root, home)); err != nil || !info.IsDir() {
		t.Errorf("home %s: %v", home, err)
	}
	if info, err := os.Stat(filepath.Join(root, "tmp")); err != nil || info.Mode()&os.ModeSticky == 0 || info.Mode().Perm() != 0o777 {
		t.Errorf("/tmp is not world-writable and sticky: %v %v", info, err)
	}

	// The CA bundle the binaries' TLS reads (the gocql driver's, the manager's), where Go
	// looks for it on Linux and where SSL_CERT_FILE says.
	if !slices.Contains(cfg.Env, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt") {
		t.Errorf("Env %v does not name the CA bundle", cfg.Env)
	}
	bundle, err := os.ReadFile(filepath.Join(root, "etc", "ssl", "certs", "ca-certificates.crt"))
	if err != nil {
		t.Fatal(err)
	}
	var certs int
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if strings.TrimSpace(string(rest)) != "" {
				t.Errorf("the CA bundle has %d bytes that are not PEM after %d certificates", len(rest), certs)
			}
			break
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			t.Errorf("certificate %d of the CA bundle: %v", certs+1, err)
		}
		certs++
	}
	// Debian's bundle holds well over a hundred roots; a handful means a broken assembly.
	if certs < 100 {
		t.Errorf("the CA bundle holds %d certificates", certs)
	}

	// Time zones, for time.LoadLocation in the binaries.
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/New_York"} {
		tz, err := os.ReadFile(filepath.Join(root, "usr", "share", "zoneinfo", zone))
		if err != nil {
			t.Errorf("zone %s: %v", zone, err)
			continue
		}
		if _, err := time.LoadLocationFromTZData(zone, tz); err != nil {
			t.Errorf("zone %s: %v", zone, err)
		}
	}
}
