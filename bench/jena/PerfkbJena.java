// PerfkbJena is the Apache Jena side of perfkb's benchmarks (issues 4 and 5):
// it times Jena ARQ queries over an in-memory model and Jena's forward RETE
// rule engine (GenericRuleReasoner) over the same data perfkb is measured on.
//
// Build and run it with bench/jena/build.sh and bench/jena/run.sh; see
// bench/README.md for the modes and flags.

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.jena.graph.Graph;
import org.apache.jena.graph.Triple;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.ResultSet;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.query.Syntax;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.reasoner.InfGraph;
import org.apache.jena.reasoner.rulesys.GenericRuleReasoner;
import org.apache.jena.reasoner.rulesys.Rule;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.riot.system.StreamRDF;
import org.apache.jena.riot.system.StreamRDFBase;
import org.apache.jena.riot.system.StreamRDFWriter;
import org.apache.jena.sparql.core.DatasetGraph;
import org.apache.jena.sparql.core.DatasetGraphFactory;
import org.apache.jena.sparql.core.Quad;
import org.apache.jena.sys.JenaSystem;

/** Command-line runner: {@code query} and {@code rules} modes. */
public final class PerfkbJena {

    private PerfkbJena() {}

    /** For --store tim-union: the transactional dataset under the union view, else null. */
    private static DatasetGraph txnBase;

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
            System.exit(2);
        }
        JenaSystem.init();
        Map<String, List<String>> opts = parseFlags(Arrays.copyOfRange(args, 1, args.length));
        switch (args[0]) {
            case "query":
                runQuery(opts);
                break;
            case "rules":
                runRules(opts);
                break;
            case "compare":
                runCompare(opts);
                break;
            case "version":
                System.out.println("jena " + org.apache.jena.Jena.VERSION + ", java " + System.getProperty("java.version"));
                break;
            default:
                usage();
                System.exit(2);
        }
    }

    private static void usage() {
        System.err.println(String.join("\n",
            "usage:",
            "  PerfkbJena query --data FILE [--data FILE]... --query Q.rq [--query Q2.rq]...",
            "                   [--repeat N (5)] [--warmup N (1)] [--store mem|tim|tim-union (mem)] [--show K (0)]",
            "  PerfkbJena rules --data FILE [--data FILE]... --rules R.rules [--rules R2.rules]...",
            "                   [--out inferred.nt] [--exclude-asserted] [--expand-defines]",
            "  PerfkbJena compare --a A.nt --b B.nt [--show K (10)]   (exit 0 iff the graphs are isomorphic)",
            "  PerfkbJena version",
            "Data: .nq/.trig quads are merged into one default graph (the union of all graphs),",
            "as perfkb queries them; .nt/.ttl/.rdf are read as triples."));
    }

    // ---------------------------------------------------------------- flags

    private static Map<String, List<String>> parseFlags(String[] args) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                die("unexpected argument " + a);
            }
            String name = a.substring(2);
            String value = "true";
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (!isBooleanFlag(name)) {
                if (i + 1 >= args.length) {
                    die("flag --" + name + " needs a value");
                }
                value = args[++i];
            }
            m.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
        }
        return m;
    }

    private static boolean isBooleanFlag(String name) {
        return name.equals("exclude-asserted") || name.equals("expand-defines");
    }

    private static String one(Map<String, List<String>> m, String name, String def) {
        List<String> v = m.get(name);
        if (v == null || v.isEmpty()) {
            if (def == null) {
                die("missing --" + name);
            }
            return def;
        }
        return v.get(v.size() - 1);
    }

    private static List<String> all(Map<String, List<String>> m, String name) {
        List<String> v = m.get(name);
        if (v == null || v.isEmpty()) {
            die("missing --" + name);
        }
        return v;
    }

    private static void die(String msg) {
        System.err.println("PerfkbJena: " + msg);
        usage();
        System.exit(2);
    }

    // ---------------------------------------------------------------- loading

    /** Streams every triple and quad of a file into one graph (the RDF merge / union default graph). */
    private static final class IntoGraph extends StreamRDFBase {
        private final Graph graph;
        long parsed;

        IntoGraph(Graph graph) {
            this.graph = graph;
        }

        @Override
        public void triple(Triple t) {
            graph.add(t);
            parsed++;
        }

        @Override
        public void quad(Quad q) {
            graph.add(q.asTriple());
            parsed++;
        }
    }

    private static long loadMerged(Graph g, List<String> files) {
        long parsed = 0;
        for (String f : files) {
            IntoGraph sink = new IntoGraph(g);
            RDFDataMgr.parse(sink, f);
            parsed += sink.parsed;
        }
        return parsed;
    }

    // ---------------------------------------------------------------- query mode

    private static void runQuery(Map<String, List<String>> opts) throws IOException {
        List<String> dataFiles = all(opts, "data");
        List<String> queryFiles = all(opts, "query");
        int repeat = Integer.parseInt(one(opts, "repeat", "5"));
        int warmup = Integer.parseInt(one(opts, "warmup", "1"));
        int show = Integer.parseInt(one(opts, "show", "0"));
        String store = one(opts, "store", "mem");

        System.out.printf(Locale.ROOT, "# jena %s, java %s, store=%s, max heap %.1f GiB, cpus %d%n",
            org.apache.jena.Jena.VERSION, System.getProperty("java.version"), store,
            Runtime.getRuntime().maxMemory() / (1024.0 * 1024 * 1024), Runtime.getRuntime().availableProcessors());

        long t0 = System.nanoTime();
        Dataset dataset;
        long parsed = 0;
        long size;
        switch (store) {
            case "mem": {
                // Classic in-memory model (GraphMem); all graphs merged into the default graph.
                Model model = ModelFactory.createDefaultModel();
                parsed = loadMerged(model.getGraph(), dataFiles);
                size = model.size();
                dataset = DatasetFactory.wrap(model);
                break;
            }
            case "tim": {
                // Transactional in-memory dataset; all graphs merged into its default graph.
                DatasetGraph dsg = DatasetGraphFactory.createTxnMem();
                dsg.begin(org.apache.jena.query.TxnType.WRITE);
                parsed = loadMerged(dsg.getDefaultGraph(), dataFiles);
                dsg.commit();
                dsg.end();
                dsg.begin(org.apache.jena.query.TxnType.READ);
                size = dsg.getDefaultGraph().size();
                dsg.end();
                dataset = DatasetFactory.wrap(dsg);
                break;
            }
            case "tim-union": {
                // Transactional in-memory dataset keeping the named graphs; the query's
                // default graph is the union view of all graphs.
                DatasetGraph dsg = DatasetGraphFactory.createTxnMem();
                dsg.begin(org.apache.jena.query.TxnType.WRITE);
                for (String f : dataFiles) {
                    RDFDataMgr.read(dsg, f);
                }
                dsg.commit();
                dsg.end();
                dsg.begin(org.apache.jena.query.TxnType.READ);
                Graph union = dsg.getUnionGraph();
                size = union.size();
                dsg.end();
                parsed = size;
                // Transactions are taken on the base dataset (see execCount).
                dataset = DatasetFactory.wrap(DatasetGraphFactory.wrap(dsg.getUnionGraph()));
                txnBase = dsg;
                break;
            }
            default:
                die("unknown --store " + store);
                return;
        }
        long loadNanos = System.nanoTime() - t0;
        System.gc();
        long heapAfterLoad = usedHeap();
        System.out.printf(Locale.ROOT, "load files=%s parsed=%d triples=%d load_ms=%.0f heap_after_load_mb=%.0f%n",
            String.join(",", dataFiles), parsed, size, loadNanos / 1e6, heapAfterLoad / 1048576.0);

        for (String qf : queryFiles) {
            Query query = QueryFactory.read(qf, Syntax.syntaxARQ);
            long rows = -1;
            for (int i = 0; i < warmup; i++) {
                rows = execCount(query, dataset, 0);
            }
            double[] times = new double[repeat];
            double[] cpuTimes = new double[repeat];
            double[] procTimes = new double[repeat];
            java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            for (int i = 0; i < repeat; i++) {
                long c = threads.getCurrentThreadCpuTime();
                long pc = processCpuNanos();
                long s = System.nanoTime();
                long r = execCount(query, dataset, 0);
                times[i] = (System.nanoTime() - s) / 1e6;
                cpuTimes[i] = (threads.getCurrentThreadCpuTime() - c) / 1e6;
                procTimes[i] = (processCpuNanos() - pc) / 1e6;
                if (rows >= 0 && r != rows) {
                    System.err.printf("warning: %s gave %d rows, earlier %d%n", qf, r, rows);
                }
                rows = r;
            }
            double[] sorted = times.clone();
            Arrays.sort(sorted);
            double median = median(times);
            double cpuMedian = median(cpuTimes);
            double procMedian = median(procTimes);
            StringBuilder all = new StringBuilder();
            for (double t : times) {
                if (all.length() > 0) {
                    all.append(',');
                }
                all.append(String.format(Locale.ROOT, "%.1f", t));
            }
            System.out.printf(Locale.ROOT,
                "query=%s rows=%d median_ms=%.1f thread_cpu_median_ms=%.1f process_cpu_median_ms=%.1f min_ms=%.1f max_ms=%.1f runs_ms=[%s]%n",
                Paths.get(qf).getFileName(), rows, median, cpuMedian, procMedian,
                sorted.length == 0 ? Double.NaN : sorted[0],
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1], all);
            if (show > 0) {
                execCount(query, dataset, show);
            }
        }
    }

    private static double median(double[] xs) {
        if (xs.length == 0) {
            return Double.NaN;
        }
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** Runs a query once and counts its results (rows, or triples for CONSTRUCT/DESCRIBE); prints the first {@code show}. */
    private static long execCount(Query query, Dataset dataset, int show) {
        boolean txn = txnBase == null && dataset.supportsTransactions();
        if (txn) {
            dataset.begin(org.apache.jena.query.ReadWrite.READ);
        } else if (txnBase != null) {
            txnBase.begin(org.apache.jena.query.TxnType.READ);
        }
        try (QueryExecution qe = QueryExecutionFactory.create(query, dataset)) {
            if (query.isSelectType()) {
                ResultSet rs = qe.execSelect();
                if (show > 0) {
                    List<org.apache.jena.query.QuerySolution> first = new ArrayList<>();
                    long n = 0;
                    while (rs.hasNext()) {
                        org.apache.jena.query.QuerySolution s = rs.next();
                        if (n < show) {
                            first.add(s);
                        }
                        n++;
                    }
                    System.out.println("first " + first.size() + " of " + n + " rows:");
                    for (org.apache.jena.query.QuerySolution s : first) {
                        System.out.println("  " + s);
                    }
                    return n;
                }
                long n = 0;
                while (rs.hasNext()) {
                    rs.next();
                    n++;
                }
                return n;
            } else if (query.isAskType()) {
                boolean b = qe.execAsk();
                if (show > 0) {
                    System.out.println("ask: " + b);
                }
                return b ? 1 : 0;
            } else {
                Iterator<Triple> it = qe.execConstructTriples();
                long n = 0;
                while (it.hasNext()) {
                    Triple t = it.next();
                    if (n < show) {
                        System.out.println("  " + t);
                    }
                    n++;
                }
                return n;
            }
        } finally {
            if (txn) {
                dataset.end();
            } else if (txnBase != null) {
                txnBase.end();
            }
        }
    }

    // ---------------------------------------------------------------- rules mode

    private static final Pattern DEFINE = Pattern.compile("^\\s*@define\\s+([A-Za-z_][A-Za-z0-9_]*)\\s+(.*?)\\s*\\.\\s*(#.*)?$");

    /**
     * Reads a rule file for Jena. With expandDefines, perfkb's {@code @define NAME VALUE.} lines are
     * removed and NAME tokens are replaced by VALUE (Jena has no named constants). The text is then
     * parsed by Jena's own rule parser, so {@code @include} behaves as in Jena (a relative file name
     * resolves against the working directory).
     */
    private static String ruleText(Path file, boolean expandDefines) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        if (!expandDefines) {
            return text;
        }
        Map<String, String> defines = new LinkedHashMap<>();
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            Matcher m = DEFINE.matcher(line);
            if (m.matches()) {
                defines.put(m.group(1), m.group(2));
                out.append("# (define) ").append(line).append('\n');
                continue;
            }
            out.append(line).append('\n');
        }
        String result = out.toString();
        for (Map.Entry<String, String> e : defines.entrySet()) {
            result = substituteToken(result, e.getKey(), e.getValue());
        }
        return result;
    }

    /** Replaces whole-word occurrences of name outside comments and string literals. */
    private static String substituteToken(String text, String name, String value) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.stripLeading().startsWith("#") || line.stripLeading().startsWith("//")) {
                out.append(line).append('\n');
                continue;
            }
            StringBuilder l = new StringBuilder();
            boolean inString = false;
            int i = 0;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (c == '"' && (i == 0 || line.charAt(i - 1) != '\\')) {
                    inString = !inString;
                    l.append(c);
                    i++;
                    continue;
                }
                if (!inString && line.startsWith(name, i)
                    && (i == 0 || !isWordChar(line.charAt(i - 1)))
                    && (i + name.length() >= line.length() || !isWordChar(line.charAt(i + name.length())))) {
                    l.append(value);
                    i += name.length();
                    continue;
                }
                l.append(c);
                i++;
            }
            out.append(l).append('\n');
        }
        return out.toString();
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == ':' || c == '?';
    }

    private static void runRules(Map<String, List<String>> opts) throws IOException {
        List<String> dataFiles = all(opts, "data");
        List<String> ruleFiles = all(opts, "rules");
        String outFile = one(opts, "out", "");
        boolean excludeAsserted = opts.containsKey("exclude-asserted");
        boolean expandDefines = opts.containsKey("expand-defines");

        System.out.printf(Locale.ROOT, "# jena %s, java %s, max heap %.1f GiB, cpus %d%n",
            org.apache.jena.Jena.VERSION, System.getProperty("java.version"),
            Runtime.getRuntime().maxMemory() / (1024.0 * 1024 * 1024), Runtime.getRuntime().availableProcessors());

        List<Rule> rules = new ArrayList<>();
        for (String rf : ruleFiles) {
            String text = ruleText(Paths.get(rf), expandDefines);
            try {
                Rule.Parser parser = Rule.rulesParserFromReader(
                    new java.io.BufferedReader(new java.io.StringReader(text)));
                List<Rule> parsed = Rule.parseRules(parser);
                System.out.printf(Locale.ROOT, "rules file=%s rules=%d%n", rf, parsed.size());
                rules.addAll(parsed);
            } catch (RuntimeException e) {
                System.out.printf(Locale.ROOT, "rules file=%s REJECTED: %s%n", rf, e.getMessage());
                System.exit(1);
            }
        }

        long t0 = System.nanoTime();
        Graph data = ModelFactory.createDefaultModel().getGraph();
        long parsed = loadMerged(data, dataFiles);
        long loadNanos = System.nanoTime() - t0;
        System.gc();
        long heapAfterLoad = usedHeap();
        System.out.printf(Locale.ROOT, "load files=%s parsed=%d triples=%d load_ms=%.0f heap_after_load_mb=%.0f%n",
            String.join(",", dataFiles), parsed, data.size(), loadNanos / 1e6, heapAfterLoad / 1048576.0);

        resetPeaks();
        long cpu1 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        long procCpu1 = processCpuNanos();
        long t1 = System.nanoTime();
        GenericRuleReasoner reasoner = new GenericRuleReasoner(rules);
        reasoner.setMode(GenericRuleReasoner.FORWARD_RETE);
        InfGraph inf = reasoner.bind(data);
        inf.prepare();
        long reasonNanos = System.nanoTime() - t1;
        long reasonCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu1;
        long reasonProcCpu = processCpuNanos() - procCpu1;
        long peakDuring = peakHeap();
        Graph deductions = inf.getDeductionsGraph();
        long deduced = deductions.size();
        long alsoAsserted = 0;
        Iterator<Triple> it = deductions.find();
        while (it.hasNext()) {
            if (data.contains(it.next())) {
                alsoAsserted++;
            }
        }
        System.gc();
        long heapAfter = usedHeap();
        // Keep the inference graph (and its RETE network) alive up to here, so the
        // heap measured after GC includes the engine's state, not only the deductions.
        java.lang.ref.Reference.reachabilityFence(inf);
        java.lang.ref.Reference.reachabilityFence(reasoner);
        System.out.printf(Locale.ROOT,
            "reason mode=FORWARD_RETE rules=%d reason_ms=%.0f thread_cpu_ms=%.0f process_cpu_ms=%.0f deductions=%d deductions_not_asserted=%d "
                + "peak_heap_mb=%.0f heap_after_gc_mb=%.0f (data only %.0f) peak_rss_mb=%s%n",
            rules.size(), reasonNanos / 1e6, reasonCpu / 1e6, reasonProcCpu / 1e6, deduced, deduced - alsoAsserted,
            peakDuring / 1048576.0, heapAfter / 1048576.0, heapAfterLoad / 1048576.0, peakRssMb());

        if (!outFile.isEmpty()) {
            long written = 0;
            try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(Paths.get(outFile)), 1 << 16)) {
                StreamRDF w = StreamRDFWriter.getWriterStream(os, Lang.NTRIPLES);
                w.start();
                Iterator<Triple> d = deductions.find();
                while (d.hasNext()) {
                    Triple t = d.next();
                    if (excludeAsserted && data.contains(t)) {
                        continue;
                    }
                    w.triple(t);
                    written++;
                }
                w.finish();
            }
            System.out.printf(Locale.ROOT, "wrote %d triples to %s%s%n", written, outFile,
                excludeAsserted ? " (asserted triples excluded)" : "");
        }
    }

    // ---------------------------------------------------------------- compare mode

    /**
     * Compares two RDF files as graphs (e.g. Jena's and perfkb's inferred triples): ground triples
     * (no blank node) are diffed as sets; the whole graphs are checked for isomorphism (blank node
     * names do not matter). Exits 0 when isomorphic, 1 otherwise.
     */
    private static void runCompare(Map<String, List<String>> opts) {
        String a = one(opts, "a", null);
        String b = one(opts, "b", null);
        int show = Integer.parseInt(one(opts, "show", "10"));
        Graph ga = ModelFactory.createDefaultModel().getGraph();
        Graph gb = ModelFactory.createDefaultModel().getGraph();
        loadMerged(ga, List.of(a));
        loadMerged(gb, List.of(b));
        long[] onlyA = diffGround(ga, gb, a, show);
        long[] onlyB = diffGround(gb, ga, b, show);
        System.out.printf(Locale.ROOT, "a=%s triples=%d ground=%d with_bnodes=%d%n", a, ga.size(), onlyA[1], ga.size() - onlyA[1]);
        System.out.printf(Locale.ROOT, "b=%s triples=%d ground=%d with_bnodes=%d%n", b, gb.size(), onlyB[1], gb.size() - onlyB[1]);
        System.out.printf(Locale.ROOT, "ground triples only in a: %d, only in b: %d%n", onlyA[0], onlyB[0]);
        boolean iso = onlyA[0] == 0 && onlyB[0] == 0 && ga.size() == gb.size() && ga.isIsomorphicWith(gb);
        System.out.println(iso ? "isomorphic: yes" : "isomorphic: no");
        System.exit(iso ? 0 : 1);
    }

    /** Returns {ground triples of x missing from y, ground triples of x}; prints the first show missing. */
    private static long[] diffGround(Graph x, Graph y, String name, int show) {
        long missing = 0;
        long ground = 0;
        Iterator<Triple> it = x.find();
        while (it.hasNext()) {
            Triple t = it.next();
            if (t.getSubject().isBlank() || t.getObject().isBlank()) {
                continue;
            }
            ground++;
            if (!y.contains(t)) {
                if (missing < show) {
                    System.out.println("only in " + name + ": " + t);
                }
                missing++;
            }
        }
        return new long[] {missing, ground};
    }

    // ---------------------------------------------------------------- memory

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
    }

    /** Sum of the heap pools' peak usage since the last reset (an upper bound on the live peak). */
    private static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    /** CPU time of the whole JVM (all threads, GC included), or 0 when unavailable. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return 0;
    }

    /** The process's peak resident set (VmHWM) from /proc, in MiB, or "?" when unavailable. */
    private static String peakRssMb() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    String kb = line.substring(6).trim().split("\\s+")[0];
                    return String.format(Locale.ROOT, "%.0f", Long.parseLong(kb) / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            return "?";
        }
        return "?";
    }
}
