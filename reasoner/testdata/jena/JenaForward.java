// JenaForward runs Apache Jena's GenericRuleReasoner in forward RETE mode
// and writes the deductions as N-Triples, for comparing perfkb's engine with
// Jena (see TestCompareWithJena in ../../jena_test.go).
//
// Usage: java -cp CLASSPATH JenaForward.java RULES OUT.nt DATA...
import java.io.FileOutputStream;
import java.util.List;
import org.apache.jena.rdf.model.InfModel;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.reasoner.rulesys.GenericRuleReasoner;
import org.apache.jena.reasoner.rulesys.Rule;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;

public class JenaForward {
    public static void main(String[] args) throws Exception {
        List<Rule> rules = Rule.rulesFromURL("file:" + args[0]);
        Model data = ModelFactory.createDefaultModel();
        for (int i = 2; i < args.length; i++) {
            RDFDataMgr.read(data, args[i]);
        }
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long before = rt.totalMemory() - rt.freeMemory();
        GenericRuleReasoner reasoner = new GenericRuleReasoner(rules);
        reasoner.setMode(GenericRuleReasoner.FORWARD_RETE);
        long t0 = System.nanoTime();
        InfModel inf = ModelFactory.createInfModel(reasoner, data);
        inf.prepare();
        long t1 = System.nanoTime();
        Model deductions = inf.getDeductionsModel();
        long after = rt.totalMemory() - rt.freeMemory();
        System.err.printf("jena: %d input triples, %d deductions in %.3f s, heap %d MiB (data %d MiB)%n",
                data.size(), deductions.size(), (t1 - t0) / 1e9, after >> 20, before >> 20);
        try (FileOutputStream out = new FileOutputStream(args[1])) {
            RDFDataMgr.write(out, deductions, Lang.NTRIPLES);
        }
    }
}
