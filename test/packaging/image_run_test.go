package packaging_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// runInImage is how the image test starts a program of the image, as a container runtime
// would under the pods' securityContext (runAsUser and runAsGroup 65532, readOnlyRootFilesystem,
// capabilities drop ALL, allowPrivilegeEscalation false), without Docker, with util-linux:
//
//   - unshare --mount: a mount namespace of its own, whose mounts the host never sees;
//   - the image's root bind-mounted onto itself and remounted read-only (nosuid, nodev), with
//     /proc and a tmpfs at /tmp (a pod's emptyDir) mounted first, as runc mounts them;
//   - setpriv --no-new-privs --inh-caps=-all and a bounding set of only what the next step
//     needs; then unshare --root (chroot), --wd (the image's WorkingDir), --setgid/--setuid
//     65532 (clearing the supplementary groups), and exec of the program.
//
// What differs from a container runtime: no pid, network, ipc or uts namespace, no cgroup, no
// seccomp profile, chroot rather than pivot_root, and the bounding set keeps CAP_SYS_CHROOT,
// CAP_SETUID, CAP_SETGID and CAP_DAC_READ_SEARCH: setpriv cannot chroot, so it must run before
// unshare --root, and an empty bounding set would leave unshare (root) without the
// capabilities to chroot, enter the WorkingDir (/home/nonroot, mode 0700, owned by 65532) and
// change ids, in that order. None of the four can come back: the process runs as uid 65532
// with no permitted, effective, inheritable or ambient capabilities and no_new_privs, the image
// holds no file with capabilities or a set-id bit, and its root is mounted nosuid. The probe
// checks all of it from inside.
const runInImage = `set -e
root=$1 workdir=$2 probe=$3
shift 3
mount --bind "$root" "$root"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t tmpfs -o nosuid,nodev,size=16m,mode=1777 tmpfs "$root/tmp"
cp "$probe" "$root/tmp/imageprobe"
mount -o remount,bind,ro,nosuid,nodev "$root"
exec setpriv --no-new-privs --inh-caps=-all --bounding-set=-all,+sys_chroot,+setuid,+setgid,+dac_read_search -- \
	unshare --root="$root" --wd="$workdir" --setgid=65532 --setuid=65532 -- "$@"
`

// imageRunner starts programs in an extracted image root as runInImage says.
type imageRunner struct {
	root, workdir, probe string
	env                  []string
}

func newImageRunner(t *testing.T, root string, cfg ociImageConfig) imageRunner {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running the image's programs needs root here (mount namespaces, chroot); the checks of its files and config ran")
	}
	lookPaths(t, "unshare", "setpriv", "mount")
	// runc creates the mount point of /proc in the container's root; the image, like
	// distroless, has none. This is the test's copy, after the file list was checked.
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o555); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(t.TempDir(), "imageprobe")
	if _, err := run(env.Root, []string{"CGO_ENABLED=0"}, "go", "build", "-o", probe, "./test/packaging/testdata/imageprobe"); err != nil {
		t.Fatal(err)
	}
	// The image's environment, and HOME from its passwd entry, as runc sets it.
	return imageRunner{root: root, workdir: cfg.Config.WorkingDir, probe: probe,
		env: append(append([]string{}, cfg.Config.Env...), "HOME=/home/nonroot")}
}

// run runs args in the image with exactly the image's environment and returns what it
// printed on stdout and stderr (the programs print --help on stderr).
func (r imageRunner) run(args ...string) (string, error) {
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "--", "sh", "-c", runInImage, "sh",
		r.root, r.workdir, r.probe}, args...)...)
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// probeReport is what testdata/imageprobe prints.
type probeReport struct {
	UID, EUID, GID, EGID int
	Groups               []int
	Status               map[string]string
	Writes               map[string]string
}

func checkImageRunsAsUsersRunIt(t *testing.T, img pulledImage, platform, version string) {
	r := newImageRunner(t, img.roots[platform], img.configs[platform])

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"/manager", "--help"}, "--leader-elect"},
		{[]string{"/cassbench", "version", "-o", "json"}, `"version":"` + version + `"`},
		{[]string{"/cassbench-writer", "--help"}, "Usage"},
	} {
		out, err := r.run(c.args...)
		if err != nil {
			t.Errorf("%s in the image: %v", strings.Join(c.args, " "), err)
			continue
		}
		if !strings.Contains(strings.ReplaceAll(out, " ", ""), strings.ReplaceAll(c.want, " ", "")) {
			t.Errorf("%s in the image printed no %q:\n%s", strings.Join(c.args, " "), c.want, out)
		}
	}

	out, err := r.run("/tmp/imageprobe")
	if err != nil {
		t.Fatalf("the probe in the image: %v", err)
	}
	var p probeReport
	mustUnmarshal(t, "the probe's report", []byte(out), &p)
	if p.UID != 65532 || p.EUID != 65532 || p.GID != 65532 || p.EGID != 65532 || len(p.Groups) != 0 {
		t.Errorf("the probe ran as uid %d/%d gid %d/%d groups %v, want 65532 and no supplementary groups", p.UID, p.EUID, p.GID, p.EGID, p.Groups)
	}
	for key, want := range map[string]string{"CapEff": "0000000000000000", "CapPrm": "0000000000000000",
		"CapInh": "0000000000000000", "CapAmb": "0000000000000000", "NoNewPrivs": "1"} {
		if p.Status[key] != want {
			t.Errorf("in the image, /proc/self/status says %s %q, want %q", key, p.Status[key], want)
		}
	}
	// The home is the user's own (0700, 65532): only the read-only mount refuses the write
	// there. Root's files refuse it by their modes first (permission denied), as they do in a
	// container too; the tmpfs at /tmp takes it.
	erofs := syscall.EROFS.Error()
	for path, want := range map[string]string{"/probe-write": erofs, "/home/nonroot/probe-write": erofs,
		"/tmp/probe-write": "ok"} {
		if got := p.Writes[path]; !strings.HasSuffix(got, want) {
			t.Errorf("writing %s in the image: %q, want %q", path, got, want)
		}
	}
	for _, path := range []string{"/etc/passwd", "/manager"} {
		if got := p.Writes[path]; got == "ok" || got == "" {
			t.Errorf("writing %s in the image: %q, want it refused", path, got)
		}
	}
	// The bounding set holds at most the four capabilities runInImage's comment names.
	const chrootSetuidSetgidDACReadSearch = 1<<18 | 1<<7 | 1<<6 | 1<<2
	if bnd, err := strconv.ParseUint(p.Status["CapBnd"], 16, 64); err != nil || bnd&^chrootSetuidSetgidDACReadSearch != 0 {
		t.Errorf("in the image, the bounding set is %q (%v), want at most CAP_SYS_CHROOT, CAP_SETUID, CAP_SETGID and CAP_DAC_READ_SEARCH", p.Status["CapBnd"], err)
	}
}
