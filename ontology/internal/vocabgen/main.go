// Command vocabgen renders the PERFONTO tables of tables.go into
// perfonto.ttl, vocab.go and catalog_gen.go of package ontology.
//
// Run it through `go generate ./ontology` after editing tables.go.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

const (
	namespace   = "http://www.par.univie.ac.at/project/scalea/perfonto#"
	ontologyIRI = "http://www.par.univie.ac.at/project/scalea/perfonto"
	xsdNS       = "http://www.w3.org/2001/XMLSchema#"
)

func main() {
	outDir := flag.String("out", ".", "directory of package ontology")
	flag.Parse()
	m, err := buildModel()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*outDir, "perfonto.ttl"), renderTurtle(m), 0o644); err != nil {
		log.Fatal(err)
	}
	for name, render := range map[string]func(*model) []byte{"vocab.go": renderVocab, "catalog_gen.go": renderCatalog} {
		src, err := format.Source(render(m))
		if err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(*outDir, name), src, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

type model struct {
	classes []class
	props   []property
	indivs  []individual
}

func buildModel() (*model, error) {
	m := &model{}
	byName := map[string]int{}
	add := func(c class) error {
		if _, dup := byName[c.Name]; dup {
			return fmt.Errorf("class %s declared twice", c.Name)
		}
		byName[c.Name] = len(m.classes)
		m.classes = append(m.classes, c)
		return nil
	}
	for _, c := range coreClasses {
		if err := add(c); err != nil {
			return nil, err
		}
	}
	for _, t := range codeRegionTypes {
		if t.Parent == "" {
			i, ok := byName[t.Class]
			if !ok {
				return nil, fmt.Errorf("%s: umbrella class %s not declared", t.Mnemonic, t.Class)
			}
			m.classes[i].Mnemonic = t.Mnemonic
			continue
		}
		comment := fmt.Sprintf("Code region type %s: %s (Appendix C.1). Instances carry perfonto:hasCrType \"%s\".", t.Mnemonic, t.Desc, t.Mnemonic)
		if err := add(class{Name: t.Class, Parents: []string{t.Parent}, Label: t.Label, Comment: comment, Mnemonic: t.Mnemonic}); err != nil {
			return nil, err
		}
	}
	for _, c := range extraRegionClasses {
		if err := add(c); err != nil {
			return nil, err
		}
	}
	for _, c := range m.classes {
		for _, p := range c.Parents {
			if _, ok := byName[p]; !ok {
				return nil, fmt.Errorf("class %s: unknown parent %s", c.Name, p)
			}
		}
	}
	propNames := map[string]bool{}
	for _, p := range properties {
		if propNames[p.Name] {
			return nil, fmt.Errorf("property %s declared twice", p.Name)
		}
		propNames[p.Name] = true
	}
	for _, p := range properties {
		for _, ref := range append(append([]string{}, p.Parents...), p.Inverse) {
			if ref != "" && !propNames[ref] {
				return nil, fmt.Errorf("property %s: unknown property %s", p.Name, ref)
			}
		}
		for _, ref := range []string{p.Domain, p.Range} {
			if ref != "" && !strings.Contains(ref, ":") {
				if _, ok := byName[ref]; !ok {
					return nil, fmt.Errorf("property %s: unknown class %s", p.Name, ref)
				}
			}
		}
	}
	m.props = properties
	m.indivs = append(m.indivs, individuals...)
	for _, mt := range metrics {
		extra := [][2]string{
			{"perfonto:metricMnemonic", quote(mt.Name)},
			{"perfonto:metricDataType", quote(mt.DataType)},
			{"perfonto:metricUnit", quote(mt.Unit)},
			{"perfonto:metricDescription", quote(mt.Desc)},
			{"perfonto:valueDatatype", valueType(mt)},
			{"perfonto:hasUtility", "perfonto:" + mt.Utility},
		}
		if mt.Overhead != "" {
			if _, ok := byName[mt.Overhead]; !ok {
				return nil, fmt.Errorf("metric %s: unknown overhead class %s", mt.Name, mt.Overhead)
			}
			extra = append(extra, [2]string{"perfonto:measuresOverhead", "perfonto:" + mt.Overhead})
		}
		m.indivs = append(m.indivs, individual{
			Name:    metricLocalName(mt.Name),
			GoName:  metricGoName(mt.Name),
			Types:   []string{"MetricDefinition", mt.Class},
			Label:   mt.Name,
			Comment: mt.Desc + ".",
			Extra:   extra,
		})
	}
	return m, nil
}

func valueType(mt metric) string {
	if mt.ValueType != "" {
		return mt.ValueType
	}
	return xsdFor(mt.DataType)
}

func metricLocalName(name string) string { return "metric_" + name }

func metricGoName(name string) string {
	var b strings.Builder
	b.WriteString("Metric")
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

func goName(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// label turns a camel-case local name into words, keeping acronyms.
func label(name string) string {
	r := []rune(name)
	var words []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd {
			words = append(words, string(r[start:i]))
			start = i
		}
	}
	words = append(words, string(r[start:]))
	for i, w := range words {
		if len(w) > 1 && strings.ToUpper(w) == w {
			continue
		}
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, " ")
}

func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

func ref(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return "perfonto:" + name
}

func renderTurtle(m *model) []byte {
	var b bytes.Buffer
	b.WriteString(`# PERFONTO: an ontology for describing performance data of parallel and
# Grid applications (H.-L. Truong, dissertation, TU Wien 2005, section 6.5.4).
#
# Generated by ontology/internal/vocabgen from its tables.go; edit the tables
# and run "go generate ./ontology" instead of editing this file.

@prefix perfonto: <` + namespace + `> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <` + xsdNS + `> .

<` + ontologyIRI + `> a owl:Ontology ;
    rdfs:label "PERFONTO" ;
    rdfs:comment "Ontology for describing performance data: experiment-related concepts (applications, versions, code regions, experiments, processing units, region summaries and instances, metrics, events), resource-related concepts (sites, clusters, nodes, networks and their benchmarked performance, SCALEA-G sensors), the performance metrics catalog, the temporal overhead classification and a performance problem hierarchy for analysis findings." ;
    owl:versionInfo "perfkb 1" .

`)
	b.WriteString("#################################################################\n# Classes\n#################################################################\n\n")
	for _, c := range m.classes {
		lbl := c.Label
		if lbl == "" {
			lbl = label(c.Name)
		}
		fmt.Fprintf(&b, "perfonto:%s a owl:Class ;\n", c.Name)
		for _, p := range c.Parents {
			fmt.Fprintf(&b, "    rdfs:subClassOf perfonto:%s ;\n", p)
		}
		if c.Mnemonic != "" {
			fmt.Fprintf(&b, "    perfonto:crMnemonic %s ;\n", quote(c.Mnemonic))
		}
		fmt.Fprintf(&b, "    rdfs:label %s ;\n    rdfs:comment %s .\n\n", quote(lbl), quote(c.Comment))
	}
	b.WriteString("#################################################################\n# Properties\n#################################################################\n\n")
	for _, p := range m.props {
		lbl := p.Label
		if lbl == "" {
			lbl = label(p.Name)
		}
		types := []string{p.Kind}
		if p.Transitive {
			types = append(types, "owl:TransitiveProperty")
		}
		if p.Functional {
			types = append(types, "owl:FunctionalProperty")
		}
		fmt.Fprintf(&b, "perfonto:%s a %s ;\n", p.Name, strings.Join(types, ", "))
		if p.Domain != "" {
			fmt.Fprintf(&b, "    rdfs:domain %s ;\n", ref(p.Domain))
		}
		rng := p.Range
		if rng == "" && p.Kind == datatypeProp {
			rng = "rdfs:Literal"
		}
		if rng != "" {
			fmt.Fprintf(&b, "    rdfs:range %s ;\n", ref(rng))
		}
		for _, parent := range p.Parents {
			fmt.Fprintf(&b, "    rdfs:subPropertyOf perfonto:%s ;\n", parent)
		}
		if p.Inverse != "" {
			fmt.Fprintf(&b, "    owl:inverseOf perfonto:%s ;\n", p.Inverse)
		}
		fmt.Fprintf(&b, "    rdfs:label %s ;\n    rdfs:comment %s .\n\n", quote(lbl), quote(p.Comment))
	}
	b.WriteString("#################################################################\n# Individuals: metric utilities, sensors and the performance metrics catalog\n#################################################################\n\n")
	for _, in := range m.indivs {
		types := []string{"owl:NamedIndividual"}
		for _, t := range in.Types {
			types = append(types, ref(t))
		}
		fmt.Fprintf(&b, "perfonto:%s a %s ;\n", in.Name, strings.Join(types, ", "))
		for _, e := range in.Extra {
			fmt.Fprintf(&b, "    %s %s ;\n", e[0], e[1])
		}
		fmt.Fprintf(&b, "    rdfs:label %s ;\n    rdfs:comment %s .\n\n", quote(in.Label), quote(in.Comment))
	}
	return b.Bytes()
}

func goComment(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return s
}

func renderVocab(m *model) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by ontology/internal/vocabgen; DO NOT EDIT.\n\npackage ontology\n\n")
	b.WriteString("// Classes of PERFONTO.\nconst (\n")
	for _, c := range m.classes {
		name := c.GoName
		if name == "" {
			name = goName(c.Name)
		}
		extra := ""
		if c.Mnemonic != "" {
			extra = " Code region mnemonic " + c.Mnemonic + "."
		}
		fmt.Fprintf(&b, "\t// %s is the class perfonto:%s. %s%s\n\t%s = Namespace + %q\n", name, c.Name, goComment(c.Comment), extra, name, c.Name)
	}
	b.WriteString(")\n\n// Properties of PERFONTO.\nconst (\n")
	for _, p := range m.props {
		kind := map[string]string{objectProp: "object", datatypeProp: "datatype", annotationProp: "annotation"}[p.Kind]
		fmt.Fprintf(&b, "\t// %s is the %s property perfonto:%s. %s\n\t%s = Namespace + %q\n", goName(p.Name), kind, p.Name, goComment(p.Comment), goName(p.Name), p.Name)
	}
	b.WriteString(")\n\n// Named individuals of PERFONTO: metric utilities, sensors and the\n// performance metrics catalog.\nconst (\n")
	for _, in := range m.indivs {
		name := in.GoName
		if name == "" {
			name = goName(in.Name)
		}
		fmt.Fprintf(&b, "\t// %s is the individual perfonto:%s (%s). %s\n\t%s = Namespace + %q\n", name, in.Name, in.Label, goComment(in.Comment), name, in.Name)
	}
	b.WriteString(")\n")
	return b.Bytes()
}

func renderCatalog(m *model) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by ontology/internal/vocabgen; DO NOT EDIT.\n\npackage ontology\n\n")
	b.WriteString("// metricCatalog is the performance metrics catalog in catalog order.\nvar metricCatalog = [...]MetricInfo{\n")
	for _, mt := range metrics {
		vt := strings.TrimPrefix(valueType(mt), "xsd:")
		overheadClass := `""`
		if mt.Overhead != "" {
			overheadClass = goName(mt.Overhead)
		}
		fmt.Fprintf(&b, "\t{Name: %q, IRI: %s, DataType: %q, ValueDatatype: XSDNamespace + %q, Unit: %q, Description: %q, Class: %s, Utility: %s, Overhead: %s},\n",
			mt.Name, metricGoName(mt.Name), mt.DataType, vt, mt.Unit, mt.Desc, mt.Class, mt.Utility, overheadClass)
	}
	b.WriteString("}\n\n// codeRegionTypes lists the code region mnemonics of Appendix C.1.\nvar codeRegionTypes = [...]CodeRegionType{\n")
	for _, t := range codeRegionTypes {
		fmt.Fprintf(&b, "\t{Mnemonic: %q, Class: %s, Description: %q, Family: %s},\n", t.Mnemonic, goName(t.Class), t.Desc, familyOf(t.Class))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// familyOf walks the class hierarchy up to one of the four families.
func familyOf(className string) string {
	parent := map[string]string{}
	for _, c := range coreClasses {
		if len(c.Parents) > 0 {
			parent[c.Name] = c.Parents[0]
		}
	}
	for _, c := range extraRegionClasses {
		parent[c.Name] = c.Parents[0]
	}
	for _, t := range codeRegionTypes {
		if t.Parent != "" {
			parent[t.Class] = t.Parent
		}
	}
	for n := className; n != ""; n = parent[n] {
		switch n {
		case "GenericCodeRegion", "MPCodeRegion", "SMCodeRegion", "HPFCodeRegion", "OtherCodeRegion":
			return n
		}
	}
	return "CodeRegion"
}
