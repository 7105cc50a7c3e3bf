package sample

import (
	"fmt"
	"sort"

	"github.com/perfkb/perfkb/ontology"
)

// Predicates and classes as N-Triples terms.
const (
	pType                = "<" + ontology.RDFType + ">"
	pLabel               = "<" + ontology.RDFSLabel + ">"
	pSiteName            = "<" + ontology.SiteName + ">"
	pSiteLocation        = "<" + ontology.SiteLocation + ">"
	pHasCluster          = "<" + ontology.HasCluster + ">"
	pClusterAtSite       = "<" + ontology.ClusterAtSite + ">"
	pClusterName         = "<" + ontology.ClusterName + ">"
	pTotalFlops          = "<" + ontology.TotalFlops + ">"
	pHasNode             = "<" + ontology.HasNode + ">"
	pInCluster           = "<" + ontology.InCluster + ">"
	pHostName            = "<" + ontology.HostName + ">"
	pHostAddress         = "<" + ontology.HostAddress + ">"
	pSystemModel         = "<" + ontology.SystemModel + ">"
	pPhysicalMemory      = "<" + ontology.PhysicalMemory + ">"
	pVirtualMemory       = "<" + ontology.VirtualMemory + ">"
	pNumCPU              = "<" + ontology.NumCpu + ">"
	pCPUType             = "<" + ontology.CpuType + ">"
	pCPUSpeed            = "<" + ontology.CpuSpeed + ">"
	pPeakMflops          = "<" + ontology.PeakMflops + ">"
	pOSName              = "<" + ontology.OsName + ">"
	pOSVersion           = "<" + ontology.OsVersion + ">"
	pHardDiskSize        = "<" + ontology.HardDiskSize + ">"
	pDataCacheSize       = "<" + ontology.DataCacheSize + ">"
	pCacheMissPenalty    = "<" + ontology.CacheMissPenalty + ">"
	pHasNetwork          = "<" + ontology.HasNetwork + ">"
	pNetworkName         = "<" + ontology.NetworkName + ">"
	pNetworkBandwidth    = "<" + ontology.NetworkBandwidth + ">"
	pNetworkLatency      = "<" + ontology.NetworkLatency + ">"
	pHasMPP2PPerf        = "<" + ontology.HasMPP2PPerf + ">"
	pHasMPColPerf        = "<" + ontology.HasMPColPerf + ">"
	pHasSharedMemoryPerf = "<" + ontology.HasSharedMemoryPerf + ">"
	pMPILibName          = "<" + ontology.MpiLibName + ">"
	pOMPLibName          = "<" + ontology.OmpLibName + ">"
	pNumNode             = "<" + ontology.NumNode + ">"
	pMPIBarrierTime      = "<" + ontology.MpiBarrierTime + ">"
	pMPIBcastTime        = "<" + ontology.MpiBcastTime + ">"
	pMPISyncSendTime     = "<" + ontology.MpiSyncSendTime + ">"
	pMPIAsyncSendTime    = "<" + ontology.MpiAsyncSendTime + ">"
	pMPISsendTime        = "<" + ontology.MpiSsendTime + ">"
	pOMPLockTime         = "<" + ontology.OmpLockTime + ">"
	pOMPBarrierTime      = "<" + ontology.OmpBarrierTime + ">"
	pOMPForkJoinTime     = "<" + ontology.OmpForkJoinTime + ">"

	pApplicationName   = "<" + ontology.ApplicationName + ">"
	pHasVersion        = "<" + ontology.HasVersion + ">"
	pVersionInfo       = "<" + ontology.VersionInfo + ">"
	pHasSourceFile     = "<" + ontology.HasSourceFile + ">"
	pFileName          = "<" + ontology.FileName + ">"
	pFileLocation      = "<" + ontology.FileLocation + ">"
	pInSourceFile      = "<" + ontology.InSourceFile + ">"
	pHasCrType         = "<" + ontology.HasCrType + ">"
	pRegionName        = "<" + ontology.RegionName + ">"
	pRegionIdentifier  = "<" + ontology.RegionIdentifier + ">"
	pCodeRegionUnit    = "<" + ontology.CodeRegionUnit + ">"
	pStartLine         = "<" + ontology.StartLine + ">"
	pStartColumn       = "<" + ontology.StartColumn + ">"
	pEndLine           = "<" + ontology.EndLine + ">"
	pEndColumn         = "<" + ontology.EndColumn + ">"
	pHasParentCR       = "<" + ontology.HasParentCodeRegion + ">"
	pOfVersion         = "<" + ontology.OfVersion + ">"
	pAtSite            = "<" + ontology.AtSite + ">"
	pStartTime         = "<" + ontology.StartTime + ">"
	pEndTime           = "<" + ontology.EndTime + ">"
	pCommandLine       = "<" + ontology.CommandLine + ">"
	pCompiler          = "<" + ontology.Compiler + ">"
	pCompilerOptions   = "<" + ontology.CompilerOptions + ">"
	pExperimentInfo    = "<" + ontology.ExperimentInfo + ">"
	pNumberOfProcesses = "<" + ontology.NumberOfProcesses + ">"
	pNumberOfThreads   = "<" + ontology.NumberOfThreads + ">"
	pProblemSize       = "<" + ontology.ProblemSize + ">"
	pUsesNode          = "<" + ontology.UsesNode + ">"
	pInExperiment      = "<" + ontology.InExperiment + ">"
	pInNode            = "<" + ontology.InNode + ">"
	pOnNode            = "<" + ontology.OnComputationalNode + ">"
	pProcessID         = "<" + ontology.ProcessID + ">"
	pThreadID          = "<" + ontology.ThreadID + ">"
	pHasParentPU       = "<" + ontology.HasParentPU + ">"
	pInProcessingUnit  = "<" + ontology.InProcessingUnit + ">"
	pOfCodeRegion      = "<" + ontology.OfCodeRegion + ">"
	pHasChildRS        = "<" + ontology.HasChildRS + ">"
	pHasMetric         = "<" + ontology.HasMetric + ">"
	pHasMetricName     = "<" + ontology.HasMetricName + ">"
	pHasMetricValue    = "<" + ontology.HasMetricValue + ">"
	pHasChildRI        = "<" + ontology.HasChildRI + ">"
	pHasEvent          = "<" + ontology.HasEvent + ">"
	pAtEventTime       = "<" + ontology.AtEventTime + ">"
	pHasEventAttr      = "<" + ontology.HasEventAttr + ">"
	pHasAttrName       = "<" + ontology.HasAttrName + ">"
	pHasAttrValue      = "<" + ontology.HasAttrValue + ">"
	pSendsMessage      = "<" + ontology.SendsMessage + ">"
	pReceivesMessage   = "<" + ontology.ReceivesMessage + ">"
	pMessageSize       = "<" + ontology.MessageSize + ">"
	pMessageTag        = "<" + ontology.MessageTag + ">"
	pMessageSender     = "<" + ontology.MessageSender + ">"
	pMessageReceiver   = "<" + ontology.MessageReceiver + ">"
	pPartOfCollective  = "<" + ontology.PartOfCollective + ">"

	pSensorID         = "<" + ontology.SensorID + ">"
	pResourceID       = "<" + ontology.ResourceID + ">"
	pInstanceOfSensor = "<" + ontology.InstanceOfSensor + ">"
	pMonitorsResource = "<" + ontology.MonitorsResource + ">"
	pManagedBy        = "<" + ontology.ManagedBy + ">"
	pLifetime         = "<" + ontology.Lifetime + ">"
	pProducedBy       = "<" + ontology.ProducedBy + ">"
	pAboutResource    = "<" + ontology.AboutResource + ">"
	pMeasurementTime  = "<" + ontology.MeasurementTime + ">"
	pMeasuredValue    = "<" + ontology.MeasuredValue + ">"
	pMeasurementUnit  = "<" + ontology.MeasurementUnit + ">"
	pPathSource       = "<" + ontology.PathSource + ">"
	pPathDestination  = "<" + ontology.PathDestination + ">"
	pBandwidth        = "<" + ontology.Bandwidth + ">"

	cSite                = "<" + ontology.Site + ">"
	cCluster             = "<" + ontology.Cluster + ">"
	cSMPCluster          = "<" + ontology.SMPCluster + ">"
	cNode                = "<" + ontology.ComputationalNode + ">"
	cSMPNode             = "<" + ontology.SMPComputationalNode + ">"
	cEthernet            = "<" + ontology.EthernetNetwork + ">"
	cMyrinet             = "<" + ontology.MyrinetNetwork + ">"
	cMPP2PPerf           = "<" + ontology.NetworkMPP2PPerf + ">"
	cMPColPerf           = "<" + ontology.NetworkMPColPerf + ">"
	cSharedMemoryPerf    = "<" + ontology.NodeSharedMemoryPerf + ">"
	cApplication         = "<" + ontology.Application + ">"
	cVersion             = "<" + ontology.Version + ">"
	cSourceFile          = "<" + ontology.SourceFile + ">"
	cExperiment          = "<" + ontology.Experiment + ">"
	cNodeUnit            = "<" + ontology.NodeUnit + ">"
	cProcessUnit         = "<" + ontology.ProcessUnit + ">"
	cThreadUnit          = "<" + ontology.ThreadUnit + ">"
	cRegionSummary       = "<" + ontology.RegionSummary + ">"
	cRegionInstance      = "<" + ontology.RegionInstance + ">"
	cPerformanceMetric   = "<" + ontology.PerformanceMetric + ">"
	cEnterEvent          = "<" + ontology.EnterEvent + ">"
	cExitEvent           = "<" + ontology.ExitEvent + ">"
	cSendEvent           = "<" + ontology.SendEvent + ">"
	cRecvEvent           = "<" + ontology.RecvEvent + ">"
	cCollectiveEvent     = "<" + ontology.CollectiveEvent + ">"
	cEventAttribute      = "<" + ontology.EventAttribute + ">"
	cMessage             = "<" + ontology.Message + ">"
	cCollectiveOperation = "<" + ontology.CollectiveOperation + ">"
	cSensorInstance      = "<" + ontology.SensorInstance + ">"
	cSensorManager       = "<" + ontology.SensorManager + ">"
	cNetworkPath         = "<" + ontology.NetworkPath + ">"
	cPathBandwidth       = "<" + ontology.PathBandwidthMeasurement + ">"
	cHostMeasurement     = "<" + ontology.HostMeasurement + ">"
	cMonitoredResource   = "<" + ontology.MonitoredResource + ">"

	sensorBandwidth = "<" + ontology.SensorPathBandwidthCapacityTCP + ">"
	sensorCPU       = "<" + ontology.SensorHostCPUUsed + ">"
)

// metricSpec is a metric name the generator writes, with its literal form.
type metricSpec struct {
	name   string
	quoted string // "\"wtime\"" ready for hasMetricName
	long   bool   // values are xsd:long (int64 counters), else xsd:double
}

func spec(name string) metricSpec {
	info, ok := ontology.LookupMetric(name)
	if !ok {
		panic(fmt.Sprintf("sample: metric %q is not in the PERFONTO catalog", name))
	}
	return metricSpec{name: name, quoted: `"` + name + `"`, long: info.ValueDatatype == ontology.XSDLong}
}

// The metrics the generator writes; spec panics at init if one is missing
// from the catalog, so a catalog change cannot silently break the data.
var (
	mWtime       = spec("wtime")
	mUtime       = spec("utime")
	mStime       = spec("stime")
	mNcalls      = spec("ncalls")
	mNsubs       = spec("nsubs")
	mL2TCM       = spec("L2_TCM")
	mL2TCA       = spec("L2_TCA")
	mL1DCM       = spec("L1_DCM")
	mTotCyc      = spec("TOT_CYC")
	mTotIns      = spec("TOT_INS")
	mFPIns       = spec("FP_INS")
	mOallIdent   = spec("oall_ident")
	mOallUnid    = spec("oall_unid")
	mOall        = spec("oall")
	mOdataFread  = spec("odata_fread")
	mOdataFwrite = spec("odata_fwrite")
	mOsync       = spec("osync")
	mOdataP2P    = spec("odata_p2p")
	mOdataCol    = spec("odata_col")
	mOdataSend   = spec("odata_send")
	mOdataRecv   = spec("odata_recv")
	mOsyncMpbar  = spec("osync_mpbar")
	mOsyncBar    = spec("osync_bar")
	mOsyncLock   = spec("osync_lock")
	mOctrpFkjn   = spec("octrp_fkjn")
	mOctrpInfl   = spec("octrp_infl")
	mOctrpSched  = spec("octrp_sched")
	mOctrpInsp   = spec("octrp_insp")
	mOctrpExec   = spec("octrp_exec")
	mOaddDtc     = spec("oadd_dtc")
	mAvgMsgLen   = spec("AvgMessageLength")
	mOlopa       = spec("olopa")
)

// seenSet records which metric names and region mnemonics were written.
type seenSet struct {
	metrics map[string]bool
	regions map[string]bool
}

func newSeenSet() *seenSet {
	return &seenSet{metrics: map[string]bool{}, regions: map[string]bool{}}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *seenSet) sortedMetrics() []string { return sortedKeys(s.metrics) }
func (s *seenSet) sortedRegions() []string { return sortedKeys(s.regions) }
