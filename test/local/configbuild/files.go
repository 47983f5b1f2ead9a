package configbuild

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// RackDC is cassandra-rackdc.properties (builder.go createRackProperties): the datacenter
// and the rack, nothing else.
func RackDC(in *Input, node Node) []byte {
	return fmt.Appendf(nil, "dc=%s\nrack=%s\n", in.DatacenterInfo.Name, node.Rack)
}

// CassandraEnv is cassandra-env.sh (builder.go createCassandraEnv): MALLOC_ARENA_MAX and
// CASSANDRA_HEAPDUMP_DIR exported first when set, then the base script, a newline, and one
// JVM_OPTS line per additional option.
func CassandraEnv(base []byte, env EnvOptions) []byte {
	var b bytes.Buffer
	if env.MallocArenaMax > 0 {
		fmt.Fprintf(&b, "export MALLOC_ARENA_MAX=%d\n", env.MallocArenaMax)
	}
	if env.HeapDumpDir != "" {
		fmt.Fprintf(&b, "export CASSANDRA_HEAPDUMP_DIR=%s\n", env.HeapDumpDir)
	}
	b.Write(base)
	b.WriteString("\n")
	for _, o := range env.AdditionalOpts {
		fmt.Fprintf(&b, "JVM_OPTS=\"$JVM_OPTS %s\"\n", o)
	}
	return b.Bytes()
}

// copied are the base files the builder copies unchanged (builder.go copyFiles).
var copied = []string{"jvm-clients.options", "jvm11-clients.options", "jvm17-clients.options", "logback.xml", "logback-tools.xml", "jvm-dependent.sh", "jvm.options"}

// Build writes the rendered config of in for node into outDir from the base config in
// baseDir (builder.go Build). Upstream opens its outputs for appending; a second run here
// replaces them instead, so that a pod whose init container runs again gets one config, not
// two concatenated.
func Build(baseDir, outDir string, in *Input, node Node) error {
	if err := os.WriteFile(filepath.Join(outDir, "cassandra-rackdc.properties"), RackDC(in, node), 0o644); err != nil {
		return err
	}
	env, err := os.ReadFile(filepath.Join(baseDir, "cassandra-env.sh"))
	if err != nil {
		return fmt.Errorf("base config: %w", err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "cassandra-env.sh"), CassandraEnv(env, in.CassandraEnv), 0o755); err != nil {
		return err
	}
	for _, f := range jvmFiles {
		base, err := readOptions(filepath.Join(baseDir, f.name))
		if err != nil {
			return err
		}
		lines, err := JVMOptions(f.name, f.jvm, f.known, base, f.section(in))
		if err != nil {
			return err
		}
		text := ""
		for _, l := range lines {
			text += l + "\n"
		}
		if err := os.WriteFile(filepath.Join(outDir, f.name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	yamlName := baseYAML
	if _, err := os.Stat(filepath.Join(baseDir, latestYAML)); err == nil {
		yamlName = latestYAML
	}
	base, err := os.ReadFile(filepath.Join(baseDir, yamlName))
	if err != nil {
		return fmt.Errorf("base config: %w", err)
	}
	out, err := CassandraYAML(base, in, node)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "cassandra.yaml"), out, 0o644); err != nil {
		return err
	}
	for _, name := range copied {
		b, err := os.ReadFile(filepath.Join(baseDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(outDir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readOptions reads the option lines of a jvm options file: trimmed, without comments and
// blank lines; a missing file has none (builder.go readJvmServerOptions).
func readOptions(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}
