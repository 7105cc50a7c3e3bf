// Package monitor holds perfkb's long-running ingestion services: servers
// that receive performance data as tools produce it, convert it with the
// converters of package convert, write it to a kb.Dataset and, when given
// rules, reason over each arrival incrementally with package reasoner.
//
// SensorListener is the SCALEA-G sensor listener behind perfkb
// sensor-listen: it accepts sensor TCP connections, decodes their messages
// with convert/sensor's Reader, maps them with its Mapper, and writes them
// in batches (group commit), through a reasoner.Engine when rules are
// configured so that findings are derived as data arrives.
//
// The services live here rather than next to their converters so that the
// converters stay below the engines: convert depends on kb and ontology,
// never on query or reasoner,
// and monitor is the one place where conversion meets the reasoner.
package monitor
