package writer

import "context"

// Arrive records b's arrival and stops there, as a writer that stopped between arriving and
// counting does: the barrier's tests play that writer with it.
func (b Barrier) Arrive(ctx context.Context) error { return b.arrive(ctx) }

// SetCgroupDir points the writer's reading of its own cgroup (cpu.max, cpu.stat) at dir, as a
// test that throttles a writer process with internal/testutil/cpuquota needs; it returns what
// puts the real one back.
func SetCgroupDir(dir string) (restore func()) {
	old := cgroupDir
	cgroupDir = dir
	return func() { cgroupDir = old }
}
