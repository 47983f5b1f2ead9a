package writer

// SetCgroupDir points the writer's reading of its own cgroup (cpu.max, cpu.stat) at dir, as a
// test that throttles a writer process with internal/testutil/cpuquota needs; it returns what
// puts the real one back.
func SetCgroupDir(dir string) (restore func()) {
	old := cgroupDir
	cgroupDir = dir
	return func() { cgroupDir = old }
}
