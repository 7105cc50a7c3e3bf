// Package sensor converts SCALEA-G sensor data (dissertation 6.2.3) into
// PERFONTO triples: XML files holding the messages of the three-phase
// sensor protocol (6.2.3.6), and — through Reader and Mapper — the live
// TCP streams perfkb sensor-listen receives (package monitor runs the
// listener).
//
// # Input
//
// A file holds messages as a sensor sends them over TCP: concatenated
// top-level elements, or wrapped in one root element (any name, e.g.
// <sensordatastream>); a bare <sensordata> document is read as one data
// entry. The messages:
//
//	<sensorinit SensorID=… ResourceID=…>      schema, lifetime (s), description, params
//	<sensordataentry SensorID=… ResourceID=…><![CDATA[<sensordata>…</sensordata>]]></sensordataentry>
//	<sensorfinal SensorID=… ResourceID=…/>
//
// SensorID and ResourceID are attributes or child elements; a data entry
// lacking them takes them from its payload. The payload is the entry's
// CDATA text (or that of a child <data>), or an inline child element.
//
// # Mapping
//
// IRIs are minted under --base from source keys only:
//
//	message / data                  triples
//	any                             <base>sensorinstance/SID/RID a SensorInstance; instanceOfSensor
//	                                the ontology's individual for a known SensorID (Fig. 6.3's
//	                                path.bandwidth.capacity.TCP, host.cpu.used, host.mem.used,
//	                                app.profiling, path.predict.bandwidth.capacity.TCP) or a new
//	                                <base>sensor/SID Sensor; sensorID, resourceID, monitorsResource,
//	                                managedBy <base>sensormanager/default
//	sensorinit                      instanceStarted, lifetime, sensorSchema, instanceDescription,
//	                                params as hasSensorField name/value fields
//	sensorfinal                     instanceFinished
//	path.*bandwidth* (Fig. 6.3)     <base>path/RID NetworkPath (resourceID, pathSource,
//	                                pathDestination); a PathBandwidthMeasurement with bandwidth
//	                                (xsd:double, MB/s, lexical kept), measurementUnit "MB/s"
//	host.* (value + unit)           <base>resource/RID MonitoredResource + ComputationalNode
//	                                (hostName); a HostMeasurement with measuredValue, measurementUnit
//	app.profiling (Fig. 6.4,        Experiment <base>experiment/EXP, NodeUnit/ProcessUnit/ThreadUnit,
//	testdata/appprofile.xsd)        CodeRegion (specific + family class, hasCrType), SourceFile,
//	                                one RegionSummary per (exp, pu, cr) with one PerformanceMetric
//	                                per name (catalog datatype, hasMetricDefinition when known)
//	any other sensor                a SensorMeasurement with every leaf (element text, attribute)
//	                                as a SensorField (fieldName path, fieldValue text)
//
// Every measurement has producedBy, aboutResource, measurementTime
// (xsd:dateTime, UTC) and rawEventTime (the eventtime as sent). eventtime
// is milliseconds since the Unix epoch (SCALEA-G is Java); values below
// 10^11 are taken as seconds. A measurement's IRI is
// <base>measurement/SID/RID/EVENTTIME/SEQ, SEQ numbering the distinct
// payloads sent at one event time, so a resent message is stored once. The
// Mapper remembers only the payloads of each instance's latest event time:
// a message arriving after a later one with a different payload but an
// equal, older time gets sequence 1 again (and adds its values to that
// measurement). Data without an eventtime is keyed by a hash of its
// payload.
//
// # Errors
//
// Malformed XML, a CDATA payload that is not well-formed, a missing
// SensorID or ResourceID, a non-numeric bandwidth or value, a bad
// eventtime and non-UTF-8 input are *convert.Error values with the
// position FILE:LINE:COLUMN (of the message for payload problems) and the
// message's SensorID and ResourceID when known. Converter.Convert stops at
// the first one; convert.Run then leaves the store unchanged.
package sensor
