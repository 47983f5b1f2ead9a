package verdict

import cbv1 "github.com/cassbench/cassbench/api/v1alpha1"

// SetCPULimit gives the nodes whose CPU was read without knowing what they could use (from a
// metrics endpoint) the limit the controller knows, so the verdict can judge their saturation.
func SetCPULimit(s *cbv1.ServerResults, millicores int64) {
	if s == nil || millicores <= 0 {
		return
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.CPUMillicores > 0 && n.CPULimitMillicores == 0 && n.CPUCores == 0 {
			n.CPULimitMillicores = millicores
		}
	}
}
