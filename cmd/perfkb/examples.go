package main

import "github.com/spf13/cobra"

// commandExamples are the Examples sections of the commands whose files do
// not set one; every help page shows at least one command to copy (paths
// are the repository's sample inputs, run from a clone).
var commandExamples = map[string]string{
	"analyze classes":      "  perfkb analyze classes",
	"analyze diff":         "  perfkb analyze diff innsbruck/exp/1 innsbruck/exp/2",
	"analyze models":       "  perfkb analyze models",
	"analyze overhead":     "  perfkb analyze overhead",
	"analyze scaling":      "  perfkb analyze scaling --format table",
	"sites add":            "  perfkb sites add linz http://linz.example:7878/sparql",
	"sites check":          "  perfkb sites check\n  perfkb sites check linz",
	"sites list":           "  perfkb sites list",
	"sites refresh":        "  perfkb sites refresh\n  perfkb sites refresh linz",
	"sites remove":         "  perfkb sites remove linz",
	"bench":                "  perfkb bench load\n  perfkb bench load --help",
	"calibrate":            "  perfkb calibrate -o calib.json\n  perfkb calibrate --overhead 800ns --copy-cost 1ns -o calib.json",
	"functions":            "  perfkb functions\n  perfkb functions | grep pf:",
	"graphs":               "  perfkb graphs\n  perfkb --store native:other.db graphs",
	"ontology":             "  perfkb ontology --check\n  perfkb ontology --upgrade",
	"stats":                "  perfkb stats\n  perfkb stats --top 20",
	"version":              "  perfkb version",
	"convert":              "  perfkb convert tau convert/tau/testdata/example --base http://perfkb.example/site/vienna/\n  perfkb convert cube convert/cube/testdata/cube-values_example.cubex --base http://perfkb.example/site/juelich/",
	"convert caliper":      "  perfkb convert caliper convert/caliper/testdata/lulesh-annotation-profile.cali --base http://perfkb.example/site/llnl/",
	"convert chrome-trace": "  perfkb convert chrome-trace convert/chrometrace/testdata/be.json --base http://perfkb.example/site/lab/",
	"convert cube":         "  perfkb convert cube convert/cube/testdata/cube-values_example.cubex --base http://perfkb.example/site/juelich/",
	"convert hpctoolkit":   "  perfkb convert hpctoolkit DATABASE-DIR --base http://perfkb.example/site/rice/",
	"convert otf2":         "  perfkb convert otf2 traces.otf2 --base http://perfkb.example/site/dresden/",
	"convert otlp":         "  perfkb convert otlp convert/otlp/testdata/trace.json --base http://perfkb.example/site/services/",
	"convert pprof":        "  perfkb convert pprof convert/pprof/testdata/cpu.pb.gz --base http://perfkb.example/site/go/",
	"convert tau":          "  perfkb convert tau convert/tau/testdata/example --base http://perfkb.example/site/vienna/",
	"convert trace":        "  perfkb convert trace convert/trace/testdata/valid.trace --base http://perfkb.example/site/vienna/",
	"rules":                "  perfkb rules list\n  perfkb rules show perfonto\n  perfkb rules check my.rules",
	"rules check":          "  perfkb rules check my.rules\n  perfkb rules check rules/perfonto.rules rules/waitstates.rules",
	"rules list":           "  perfkb rules list",
	"rules show":           "  perfkb rules show perfonto",
	"trace":                "  perfkb trace check convert/trace/testdata/valid.trace\n  perfkb trace stat convert/trace/testdata/valid.trace",
	"trace check":          "  perfkb trace check convert/trace/testdata/valid.trace",
	"trace export":         "  perfkb trace export --format chrome convert/trace/testdata/valid.trace > trace.json",
	"trace list":           "  perfkb trace list convert/trace/testdata/valid.trace",
	"trace merge":          "  perfkb trace merge convert/trace/testdata/valid.trace",
	"trace stat":           "  perfkb trace stat convert/trace/testdata/valid.trace",
}

// addExamples sets the Examples of commands that have none from
// commandExamples, keyed by the path below the root ("convert tau").
func addExamples(root *cobra.Command) {
	walkCommands(root, func(c *cobra.Command, path string) {
		if ex, ok := commandExamples[path]; ok && c.Example == "" {
			c.Example = ex
		}
	})
}

// walkCommands calls fn for root and every command below it, with its path
// below the root ("" for the root, "convert tau").
func walkCommands(root *cobra.Command, fn func(c *cobra.Command, path string)) {
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		fn(c, path)
		for _, sub := range c.Commands() {
			p := sub.Name()
			if path != "" {
				p = path + " " + p
			}
			walk(sub, p)
		}
	}
	walk(root, "")
}
