package local

import "testing"

func TestCPUList(t *testing.T) {
	for in, want := range map[string][]int{"1": {1}, "0,2-3": {0, 2, 3}, "5-5": {5}} {
		set, err := cpuList(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if set.Count() != len(want) {
			t.Errorf("%q: %d CPUs, want %v", in, set.Count(), want)
		}
		for _, c := range want {
			if !set.IsSet(c) {
				t.Errorf("%q: CPU %d not in the set", in, c)
			}
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1,", "2048"} {
		if _, err := cpuList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
