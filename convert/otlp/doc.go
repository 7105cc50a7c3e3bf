// Package otlp maps OpenTelemetry data (OTLP: ExportTraceServiceRequest
// and ExportMetricsServiceRequest, protobuf or JSON, decoded with
// go.opentelemetry.io/collector/pdata) to PERFONTO statements. Mapper is
// shared by the file converter here (perfkb convert otlp) and the live
// OTLP/HTTP receiver in monitor/otlp (perfkb otlp-listen).
//
// # Mapping
//
//	OTLP                                 PERFONTO
//	resource (service.namespace,         ActivityUnit <exp>/pu/<service>[/host/<host.name>]
//	service.name, service.instance.id,   [/pid/<process.pid>]: activityID "<namespace>/
//	host.name, process.pid)              <service>#<instance>", inNode host.name, processID
//	                                     pid, inExperiment (no service.name:
//	                                     "unknown_service", as the SDKs default)
//	span                                 RegionInstance <exp>/ri/<traceId>/<spanId>:
//	                                     ofCodeRegion, inProcessingUnit the activity unit,
//	                                     inExperiment
//	span name                            CodeRegion <base>region/<name> (its C.1 class by
//	                                     name: MPI_* → CR_MPI…, main → CR_P, else CR_Y)
//	startTimeUnixNano, endTimeUnixNano   EnterEvent <ri>/enter, ExitEvent <ri>/exit,
//	                                     atEventTime in µs since the Unix epoch
//	end − start                          PerformanceMetric <ri>/wtime (µs)
//	parentSpanId                         <exp>/ri/<traceId>/<parentSpanId> hasChildRI the
//	                                     span's instance (the parent may arrive later)
//	span attribute K = V                 EventAttribute <ri>/enter/attr/<K> of the Enter
//	                                     event: hasAttrName K, hasAttrValue V as a string
//	                                     (arrays and maps as JSON)
//	status code OK / ERROR, message      EventAttributes of the Exit event: otel.status_code
//	                                     "OK" / "ERROR", otel.status_description (the names
//	                                     OpenTelemetry gives them outside OTLP); Unset: none
//	gauge or sum data point              PerformanceMetric and SensorMeasurement
//	                                     <pu>/m/<name>/<timeUnixNano>[/a<attribute hash>]:
//	                                     hasMetricName (punctuation as '_'),
//	                                     hasMetricValue = measuredValue, measurementUnit,
//	                                     measurementTime; the activity unit hasMetric it
//	histogram, exponential histogram,    two such points: <name>_count and <name>_sum
//	summary data point
//
// Every IRI comes from the data's own keys, so a request resent after a
// lost acknowledgement maps to the same statements and is stored once.
// Not converted: span kind, span events and links, scope attributes; data
// point attributes (beyond telling points apart), exemplars and bucket
// counts; NaN and infinite values. Logs and profiles are not received.
//
// A span without a trace or span id, or ending before it starts, refuses
// the whole request ("resourceSpans[i].scopeSpans[j].spans[k]: …"); a
// body that is not OTLP is refused with the decoder's reason. Files:
// "FILE: request K (line L)" for JSON, "byte 0" for protobuf.
package otlp
