package configbuild

import "strings"

// Collectors the builder knows (builder.go supportedGCs); any other garbage_collector value
// clears the base's GC flags and adds none: the user gives them all.
const (
	g1GC       = "G1GC"
	cms        = "CMS"
	shenandoah = "Shenandoah"
	zgc        = "ZGC"
)

// gcFlags name a collector inside additional-jvm-opts (builder.go gcOptionMapping); a line
// containing one selects it. They are matched in this order; upstream walks a Go map, so
// with two collectors named in one list its choice varies.
var gcFlags = []struct{ flag, gc string }{
	{"-XX:+UseG1GC", g1GC},
	{"-XX:+UseConcMarkSweepGC", cms},
	{"-XX:+UseCMS", cms},
	{"-XX:+UseShenandoahGC", shenandoah},
	{"-XX:+UseZGC", zgc},
}

func detectCollector(opts []string) string {
	for _, o := range opts {
		for _, f := range gcFlags {
			if strings.Contains(o, f.flag) {
				return f.gc
			}
		}
	}
	return ""
}

// dropGCFlags removes the options that are exactly a collector flag (builder.go
// filterGCOptions); a longer line that only contains one stays.
func dropGCFlags(opts []string) []string {
	var out []string
	for _, o := range opts {
		isFlag := false
		for _, f := range gcFlags {
			if o == f.flag {
				isFlag = true
			}
		}
		if !isFlag {
			out = append(out, o)
		}
	}
	return out
}

// gcSettings are the flags a collector gets (builder.go getGCOptions; types.go
// defaultG1Settings, defaultCMSSettings): before JDK 17 the OpsCenter-era G1 and CMS tuning,
// from 17 on plain G1 (Cassandra's defaults) and no CMS (the JDK removed it).
func gcSettings(gc string, jvm int) []string {
	switch gc {
	case g1GC:
		if jvm < 17 {
			return []string{
				"-XX:+UseG1GC",
				"-XX:+ParallelRefProcEnabled",
				"-XX:MaxTenuringThreshold=1",
				"-XX:G1HeapRegionSize=16m",
				"-XX:G1RSetUpdatingPauseTimePercent=5",
				"-XX:MaxGCPauseMillis=300",
				"-XX:InitiatingHeapOccupancyPercent=70",
			}
		}
		return []string{"-XX:+UseG1GC"}
	case cms:
		if jvm < 17 {
			return []string{
				"-XX:+UseConcMarkSweepGC",
				"-XX:+CMSParallelRemarkEnabled",
				"-XX:SurvivorRatio=8",
				"-XX:MaxTenuringThreshold=1",
				"-XX:CMSInitiatingOccupancyFraction=75",
				"-XX:+UseCMSInitiatingOccupancyOnly",
				"-XX:CMSWaitDuration=10000",
				"-XX:+CMSParallelInitialMarkEnabled",
				"-XX:+CMSEdenChunksRecordAlways",
				"-XX:+CMSClassUnloadingEnabled",
			}
		}
		return nil
	case shenandoah:
		return []string{"-XX:+UseShenandoahGC"}
	case zgc:
		if jvm < 17 {
			return []string{"-XX:+UnlockExperimentalVMOptions", "-XX:+UseZGC"}
		}
		return []string{"-XX:+UseZGC"}
	}
	return nil
}

// allGCFlags are the flags of every known collector for a JVM version: a base line
// containing any of them goes when a collector is chosen (builder.go getAllGCOptions).
func allGCFlags(jvm int) []string {
	var out []string
	for _, gc := range []string{g1GC, cms, shenandoah, zgc} {
		out = append(out, gcSettings(gc, jvm)...)
	}
	return out
}
