package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Image is what the pod runner knows of a container image: the local binary behind each
// command path in it.
type Image struct {
	Commands map[string]string
	// User is the user the image runs as when the pod names none (the image's USER).
	User *int64
}

// HostAlias is an /etc/hosts entry every pod gets: how cluster DNS is played.
type HostAlias struct {
	IP        string
	Hostnames []string
}

// PodRunner plays the kubelet for pods matching Selector and bound to a local Node: each
// pod's single container runs as a local process in its own mount namespace, with the pod's
// /etc/hosts, termination message file and volumes bind-mounted where the container expects
// them, and as the user its security context names. The pod's status follows the process as
// the kubelet reports it, and a container that exits is started again as its pod's
// restartPolicy says, with the kubelet's back-off (restart.go).
type PodRunner struct {
	Client   client.Client
	Selector labels.Selector
	// Dir holds a directory per pod: hosts file, termination message, volumes, log.
	Dir    string
	Images map[string]Image
	// Hosts returns the entries that stand in for cluster DNS, read when a pod starts.
	Hosts func() []HostAlias
	// APIServer is the apiserver's host:port, given to pods as the kubernetes service;
	// CACert is the ca.crt of their service-account volume (kube-root-ca.crt).
	APIServer string
	CACert    []byte
	Logf      func(format string, args ...any)

	mu   sync.Mutex
	ctx  context.Context // Run's: restarts stop with it
	pods map[types.UID]*podProcess
	// retryAt holds pods whose configuration (a Secret) was missing, and when to look again.
	retryAt map[types.UID]time.Time
}

// PodProcess is what the runner did with one pod, for tests to inspect.
type PodProcess struct {
	Namespace, Name string
	Labels          map[string]string
	PID             int
	// Log is the current container's log: container.log, then container-N.log after the
	// Nth restart (the kubelet keeps one log per attempt, too).
	Log      string
	Started  time.Time
	Restarts int32
}

type podProcess struct {
	PodProcess
	uid     types.UID
	cmd     *exec.Cmd
	done    chan struct{}
	failed  string // why the container could not start, once reported
	killing bool   // stopped by the runner: not restarted
	// lastState is the previous container's end; backOff the kubelet's restart back-off.
	lastState *corev1.ContainerStateTerminated
	backOff   restartBackOff
}

// terminationMessageLimit is the kubelet's limit on one container's termination message.
const terminationMessageLimit = 4096

// Run plays the kubelet until ctx ends, then kills every container it started.
func (r *PodRunner) Run(ctx context.Context) {
	r.mu.Lock()
	if r.pods == nil {
		r.pods = map[types.UID]*podProcess{}
		r.retryAt = map[types.UID]time.Time{}
	}
	r.ctx = ctx
	r.mu.Unlock()
	defer r.killAll()
	syncEvery(ctx, 200*time.Millisecond, r.sync, func(err error) { r.Logf("pod runner: %v", err) })
}

// syncEvery calls sync at once and then every period until ctx ends, as the played kubelet,
// provisioner and DNS follow the apiserver; an error is reported unless ctx ended.
func syncEvery(ctx context.Context, period time.Duration, sync func(context.Context) error, report func(error)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		if err := sync(ctx); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (r *PodRunner) sync(ctx context.Context) error {
	var list corev1.PodList
	if err := r.Client.List(ctx, &list, client.MatchingLabelsSelector{Selector: r.Selector}); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	live := map[types.UID]bool{}
	for i := range list.Items {
		pod := &list.Items[i]
		if pod.DeletionTimestamp != nil {
			if onLocalNode(pod) {
				live[pod.UID] = true
				r.deleting(ctx, pod)
			}
			continue
		}
		live[pod.UID] = true
		if !onLocalNode(pod) {
			continue // not scheduled yet: a kubelet sees only the pods bound to its node
		}
		r.mu.Lock()
		p, known := r.pods[pod.UID]
		retry := r.retryAt[pod.UID]
		r.mu.Unlock()
		switch {
		case known && (p.cmd != nil || p.failed != ""):
			continue // running, finished, or refused for good
		case time.Now().Before(retry):
			continue
		case pod.Status.Phase != "" && pod.Status.Phase != corev1.PodPending:
			continue // another runner's pod, or one from before this runner started
		}
		r.start(ctx, pod)
	}
	// A deleted pod's containers are stopped, as the kubelet does on a graceful delete.
	r.mu.Lock()
	defer r.mu.Unlock()
	for uid, p := range r.pods {
		if !live[uid] && p.cmd != nil && !p.killing && !p.exited() {
			p.killing = true
			go r.kill(p, 30*time.Second)
		}
	}
	return nil
}

// deleting plays the kubelet's side of a graceful delete of a pod bound to its node: the
// container is stopped within the pod's grace period, then the pod is removed. The apiserver
// removes a pod no node holds at once; one a node holds stays Terminating until its kubelet
// confirms.
func (r *PodRunner) deleting(ctx context.Context, pod *corev1.Pod) {
	r.mu.Lock()
	p := r.pods[pod.UID]
	running := p != nil && p.cmd != nil && !p.exited()
	first := running && !p.killing
	if p != nil {
		p.killing = true // a container waiting out its back-off is not started again
	}
	r.mu.Unlock()
	if !running {
		r.remove(ctx, pod)
		return
	}
	if !first {
		return
	}
	grace := 30 * time.Second
	if pod.DeletionGracePeriodSeconds != nil {
		grace = time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	}
	go func() {
		r.kill(p, grace)
		r.remove(context.Background(), pod)
	}()
}

// remove deletes a pod whose containers have stopped, as the kubelet confirms a graceful delete.
func (r *PodRunner) remove(ctx context.Context, pod *corev1.Pod) {
	err := r.Client.Delete(ctx, pod, client.GracePeriodSeconds(0), client.Preconditions{UID: &pod.UID})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		r.Logf("pod runner: removing pod %s/%s: %v", pod.Namespace, pod.Name, err)
	}
}

// start launches a pod's container, or records why it cannot start.
func (r *PodRunner) start(ctx context.Context, pod *corev1.Pod) {
	p := &podProcess{PodProcess: PodProcess{Namespace: pod.Namespace, Name: pod.Name, Labels: pod.Labels}, uid: pod.UID}
	reason, msg, err := r.launch(ctx, pod, p)
	if err == nil {
		r.mu.Lock()
		r.pods[pod.UID] = p
		r.mu.Unlock()
		r.Logf("pod runner: started pod %s/%s as pid %d (log %s)", pod.Namespace, pod.Name, p.PID, p.Log)
		go r.wait(pod, p)
		return
	}
	// Configuration errors (a Secret not there yet) are retried, as the kubelet does; the
	// others are final.
	r.mu.Lock()
	if reason == "CreateContainerConfigError" {
		r.retryAt[pod.UID] = time.Now().Add(2 * time.Second)
	} else {
		p.failed = msg
		r.pods[pod.UID] = p
	}
	r.mu.Unlock()
	r.Logf("pod runner: pod %s/%s: %s: %s", pod.Namespace, pod.Name, reason, msg)
	c := pod.Spec.Containers[0]
	r.patchStatus(ctx, pod, func(st *corev1.PodStatus) {
		st.Phase = corev1.PodPending
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}},
		}}
	})
}

// launch prepares the pod's files and starts its container. It returns the reason the kubelet
// would give when the container cannot start.
func (r *PodRunner) launch(ctx context.Context, pod *corev1.Pod, p *podProcess) (reason, msg string, err error) {
	fail := func(reason string, err error) (string, string, error) { return reason, err.Error(), err }
	if len(pod.Spec.Containers) != 1 || len(pod.Spec.InitContainers) > 0 {
		return fail("Unsupported", errors.New("the local pod runner runs pods of exactly one container and no init containers"))
	}
	c := &pod.Spec.Containers[0]
	image, known, ok := r.image(c.Image)
	if !ok {
		return fail("ErrImagePull", fmt.Errorf("image %q is not known to the local pod runner (it knows %s)", c.Image, strings.Join(known, ", ")))
	}
	if len(c.Command) == 0 {
		return fail("CreateContainerError", errors.New("the container names no command and local images have no entrypoint"))
	}
	env, err := containerEnv(pod, c, r.lookup(ctx, pod.Namespace))
	if err != nil {
		return fail("CreateContainerConfigError", err)
	}
	env = append([]string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOSTNAME=" + pod.Name,
		"HOME=/",
	}, env...)
	if r.APIServer != "" {
		// The kubelet points every pod at the kubernetes service; here that is the apiserver.
		host, port, _ := strings.Cut(r.APIServer, ":")
		env = append(env, "KUBERNETES_SERVICE_HOST="+host, "KUBERNETES_SERVICE_PORT="+port)
	}
	argv := expandArgs(append(append([]string(nil), c.Command...), c.Args...), env)
	binary, ok := image.Commands[argv[0]]
	if !ok {
		return fail("CreateContainerError", fmt.Errorf("image %q has no %s", c.Image, argv[0]))
	}

	dir := filepath.Join(r.Dir, fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, string(pod.UID)[:8]))
	mounts, err := r.podFiles(ctx, pod, c, dir)
	if err != nil {
		return fail("CreateContainerError", err)
	}
	spec := shimSpec{
		Mounts:       mounts,
		ReadOnlyRoot: c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem,
		Path:         binary,
		Args:         argv,
		Env:          env,
		Dir:          c.WorkingDir,
	}
	spec.UID, spec.GID = runAs(pod, c)
	if spec.UID == nil {
		spec.UID = image.User
	}
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return fail("CreateContainerError", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail("CreateContainerError", err)
	}
	logPath := filepath.Join(dir, "container.log")
	if p.Restarts > 0 {
		logPath = filepath.Join(dir, fmt.Sprintf("container-%d.log", p.Restarts))
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fail("CreateContainerError", err)
	}
	defer func() { _ = log.Close() }() // the child has its own copy
	cmd := exec.Command(self)
	cmd.Env = []string{shimEnv + "=" + string(specJSON)}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A mount namespace of its own: Go also makes every mount in it private, so the
		// container's bind mounts stay inside.
		Unshareflags: syscall.CLONE_NEWNS,
		Setpgid:      true,
		Pdeathsig:    syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return fail("CreateContainerError", fmt.Errorf("starting %s: %w", binary, err))
	}
	r.mu.Lock()
	p.cmd, p.PID, p.Started, p.done, p.Log = cmd, cmd.Process.Pid, time.Now(), make(chan struct{}), logPath
	restarts, last := p.Restarts, p.lastState
	r.mu.Unlock()
	started := metav1.NewTime(p.Started)
	r.patchStatus(ctx, pod, func(st *corev1.PodStatus) {
		*st = corev1.PodStatus{
			Phase:      corev1.PodRunning,
			HostIP:     podIP,
			HostIPs:    []corev1.HostIP{{IP: podIP}},
			PodIP:      podIP,
			PodIPs:     []corev1.PodIP{{IP: podIP}},
			StartTime:  &started,
			Conditions: podConditions(corev1.ConditionTrue, "", started),
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: c.Name, Image: c.Image, ImageID: "local://" + c.Image, ContainerID: fmt.Sprintf("local://%d", p.PID),
				Ready: true, Started: ptrTo(true), RestartCount: restarts,
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
				LastTerminationState: lastState(last),
			}},
		}
	})
	return "", "", nil
}

// podFiles writes the pod's hosts file, termination message file and emptyDir volumes, and
// returns where each is mounted in the container.
func (r *PodRunner) podFiles(ctx context.Context, pod *corev1.Pod, c *corev1.Container, dir string) ([]bindMount, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte(hostsFile(pod, r.Hosts())), 0o644); err != nil {
		return nil, err
	}
	mounts := []bindMount{{Source: hosts, Target: "/etc/hosts"}}
	if path := c.TerminationMessagePath; path != "" {
		msg := filepath.Join(dir, "termination-log")
		// The kubelet makes the file writable by any user the container runs as.
		if err := os.WriteFile(msg, nil, 0o666); err != nil {
			return nil, err
		}
		if err := os.Chmod(msg, 0o666); err != nil {
			return nil, err
		}
		if err := ensureMountPoint(path); err != nil {
			return nil, err
		}
		mounts = append(mounts, bindMount{Source: msg, Target: path})
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	for _, vm := range c.VolumeMounts {
		v, ok := volumes[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volume %q is not in the pod", vm.Name)
		}
		src := filepath.Join(dir, "volumes", vm.Name)
		if v.EmptyDir == nil {
			if err := r.writeVolume(ctx, pod, v, src); err != nil {
				return nil, fmt.Errorf("volume %q: %w", vm.Name, err)
			}
			// The container's image would have the directory; this host may not.
			if err := os.MkdirAll(vm.MountPath, 0o755); err != nil {
				return nil, fmt.Errorf("volume %q: %w", vm.Name, err)
			}
			mounts = append(mounts, bindMount{Source: src, Target: vm.MountPath, ReadOnly: true})
			continue
		}
		if err := os.MkdirAll(src, 0o777); err != nil {
			return nil, err
		}
		if err := os.Chmod(src, 0o777); err != nil { // as the kubelet creates emptyDir
			return nil, err
		}
		if st, err := os.Stat(vm.MountPath); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("volume %q: mount path %s is not a directory on this host", vm.Name, vm.MountPath)
		}
		mounts = append(mounts, bindMount{Source: src, Target: vm.MountPath, ReadOnly: vm.ReadOnly})
	}
	return mounts, nil
}

// ensureMountPoint creates an empty file to bind-mount a termination message file on: the
// host has no /dev/termination-log.
func ensureMountPoint(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("creating the mount point %s: %w", path, err)
	}
	if f != nil {
		return f.Close()
	}
	return nil
}

func hostsFile(pod *corev1.Pod, aliases []HostAlias) string {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file (written by the local pod runner).\n")
	b.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	fmt.Fprintf(&b, "%s\t%s\n", podIP, pod.Name)
	for _, a := range aliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, " "))
	}
	for _, a := range pod.Spec.HostAliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, " "))
	}
	return b.String()
}

// runAs is the user and group the container runs as: its own security context, else the pod's.
func runAs(pod *corev1.Pod, c *corev1.Container) (uid, gid *int64) {
	if sc := pod.Spec.SecurityContext; sc != nil {
		uid, gid = sc.RunAsUser, sc.RunAsGroup
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = sc.RunAsGroup
		}
	}
	return uid, gid
}

func (r *PodRunner) lookup(ctx context.Context, namespace string) lookupKey {
	return lookupIn(ctx, r.Client, namespace)
}

// lookupIn reads keys of Secrets and ConfigMaps in namespace through c.
func lookupIn(ctx context.Context, c client.Client, namespace string) lookupKey {
	return func(kind, name, key string) (string, bool, error) {
		nn := types.NamespacedName{Namespace: namespace, Name: name}
		switch kind {
		case "secret":
			var s corev1.Secret
			err := c.Get(ctx, nn, &s)
			if apierrors.IsNotFound(err) {
				return "", false, nil
			}
			if err != nil {
				return "", false, err
			}
			v, ok := s.Data[key]
			return string(v), ok, nil
		default:
			var cm corev1.ConfigMap
			err := c.Get(ctx, nn, &cm)
			if apierrors.IsNotFound(err) {
				return "", false, nil
			}
			if err != nil {
				return "", false, err
			}
			v, ok := cm.Data[key]
			return v, ok, nil
		}
	}
}

// wait reports the container's end in the pod's status, with its termination message.
func (r *PodRunner) wait(pod *corev1.Pod, p *podProcess) {
	err := p.cmd.Wait()
	finished := metav1.Now()
	close(p.done)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as container runtimes report a killed process
		}
	} else if err != nil {
		code = 128
	}
	c := pod.Spec.Containers[0]
	msg := terminationMessage(filepath.Join(filepath.Dir(p.Log), "termination-log"), p.Log, c.TerminationMessagePolicy, code)
	reason, phase := "Completed", corev1.PodSucceeded
	if code != 0 {
		reason, phase = "Error", corev1.PodFailed
	}
	r.Logf("pod runner: pod %s/%s (pid %d) exited with code %d", p.Namespace, p.Name, p.PID, code)
	started := metav1.NewTime(p.Started)
	ended := &corev1.ContainerStateTerminated{
		ExitCode: int32(code), Reason: reason, Message: msg,
		StartedAt: started, FinishedAt: finished, ContainerID: fmt.Sprintf("local://%d", p.PID),
	}
	if r.restartLater(pod, p, ended) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.patchStatus(ctx, pod, func(st *corev1.PodStatus) {
		st.Phase = phase
		st.Conditions = podConditions(corev1.ConditionFalse, "PodCompleted", finished)
		st.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image, ImageID: "local://" + c.Image, ContainerID: fmt.Sprintf("local://%d", p.PID),
			Ready: false, Started: ptrTo(false), RestartCount: p.Restarts,
			State:                corev1.ContainerState{Terminated: ended},
			LastTerminationState: lastState(p.lastState),
		}}
	})
}

// terminationMessage reads the message as the kubelet does: the file, cut at 4096 bytes, or
// with FallbackToLogsOnError and nothing in the file, the end of the log of a failed container.
func terminationMessage(file, log string, policy corev1.TerminationMessagePolicy, code int) string {
	data, _ := os.ReadFile(file)
	if len(data) > terminationMessageLimit {
		data = data[:terminationMessageLimit]
	}
	if len(data) == 0 && policy == corev1.TerminationMessageFallbackToLogsOnError && code != 0 {
		tail := tailFile(log, 80)
		if len(tail) > 2048 {
			tail = tail[len(tail)-2048:]
		}
		return tail
	}
	return string(data)
}

func podConditions(status corev1.ConditionStatus, reason string, at metav1.Time) []corev1.PodCondition {
	conds := []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: at}}
	for _, t := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.ContainersReady, corev1.PodReady} {
		s, why := status, reason
		if t == corev1.PodReadyToStartContainers {
			s, why = corev1.ConditionTrue, ""
		}
		conds = append(conds, corev1.PodCondition{Type: t, Status: s, Reason: why, LastTransitionTime: at})
	}
	return conds
}

// patchStatus writes a pod's status as a merge patch, as the kubelet's status manager does;
// a pod deleted meanwhile is left alone.
func (r *PodRunner) patchStatus(ctx context.Context, pod *corev1.Pod, mutate func(*corev1.PodStatus)) {
	for attempt := 0; attempt < 5; attempt++ {
		fresh := &corev1.Pod{}
		err := r.Client.Get(ctx, client.ObjectKeyFromObject(pod), fresh)
		if apierrors.IsNotFound(err) || (err == nil && fresh.UID != pod.UID) {
			return
		}
		if err == nil {
			base := fresh.DeepCopy()
			mutate(&fresh.Status)
			if err = r.Client.Status().Patch(ctx, fresh, client.MergeFrom(base)); err == nil || apierrors.IsNotFound(err) {
				return
			}
		}
		r.Logf("pod runner: writing the status of pod %s/%s: %v", pod.Namespace, pod.Name, err)
		time.Sleep(500 * time.Millisecond)
	}
}

// kill stops a container: SIGTERM to its process group, SIGKILL after the grace period.
func (r *PodRunner) kill(p *podProcess, grace time.Duration) {
	r.Logf("pod runner: pod %s/%s was deleted: stopping pid %d", p.Namespace, p.Name, p.PID)
	_ = syscall.Kill(-p.PID, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.PID, syscall.SIGKILL)
		<-p.done
	}
}

func (r *PodRunner) killAll() {
	r.mu.Lock()
	var running []*podProcess
	for _, p := range r.pods {
		p.killing = true
		if p.cmd != nil && !p.exited() {
			running = append(running, p)
		}
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range running {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.kill(p, 5*time.Second)
		}()
	}
	wg.Wait()
}

func (p *podProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Processes returns every pod the runner started, oldest first.
func (r *PodRunner) Processes() []PodProcess {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []PodProcess
	for _, p := range r.pods {
		if p.cmd != nil {
			out = append(out, p.PodProcess)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// Running tells whether the runner's process for a pod is still alive.
func (r *PodRunner) Running(namespace, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pods {
		if p.Namespace == namespace && p.Name == name && p.cmd != nil {
			return !p.exited()
		}
	}
	return false
}

func ptrTo[T any](v T) *T { return &v }
