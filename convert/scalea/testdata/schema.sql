-- The SCALEA experiment data repository schema, Truong's dissertation,
-- Appendix E.1 ("Database Schema"), as printed.
--
-- Fixes needed to make it valid SQL (nothing else is changed):
--   1. PMC: the stray "·" after pmcID is removed ("pmcID · SERIAL PRIMARY KEY").
--   2. TemporalOverheadMetrics: "name TEXT NOT NULL." ends in a full stop;
--      it is a comma here.
--
-- Oddities kept on purpose (convert/scalea handles them, see its package doc):
--   - NetworkMPP2PPerf holds collective columns (mpiBarrier, mpiBcast REAL[5],
--     numNode) and NetworkMPColPerf point-to-point ones (mpiSync, mpiAsync,
--     mpiSsend REAL[6]): the column sets look swapped; they are mapped by
--     column meaning.
--   - NodeSharedMemoryPerf references Cluster, not ComputationalNode.
--   - RegionSummary carries both (computationalNode, processID, threadID) and
--     puID, both codeRegion and codeRegionID, both parentRegion and
--     regionSummaryIDParent.
--   - CodeRegion.sourceFileID has no foreign key.
--   - Nothing links Experiment to VirtualMachine.
--   - ProcessingUnit has no experiment.
-- PostgreSQL folds the unquoted names to lower case (regionsummary).

CREATE TABLE PMC (
    pmcID SERIAL PRIMARY KEY,
    pmcMetricName TEXT,
    pmcMetricUnit TEXT,
    pmcMetricDataType TEXT,
    pmcMetricDesc TEXT
);
CREATE TABLE VirtualMachine (
    virtualMachineID SERIAL PRIMARY KEY,
    name TEXT
);
CREATE TABLE VirtualNode (
    virtualNodeID SERIAL PRIMARY KEY,
    name TEXT,
    numCpu INTEGER,
    virtualMachineID INTEGER REFERENCES VirtualMachine
);
CREATE TABLE Cluster (
    clusterID SERIAL PRIMARY KEY,
    name TEXT,
    totalFlops REAL
);
CREATE TABLE Network (
    networkID SERIAL PRIMARY KEY,
    name TEXT,
    bandwidth REAL,
    latency REAL,
    clusterID INTEGER REFERENCES Cluster
);
CREATE TABLE NetworkMPP2PPerf(
    colMPICommID SERIAL PRIMARY KEY,
    mpilibName TEXT,
    numNode INTEGER,
    mpiBarrier REAL,
    mpiBcast REAL[5],
    networkID INTEGER REFERENCES Network
);
CREATE TABLE NetworkMPColPerf(
    perfMPICompNodeID SERIAL PRIMARY KEY,
    mpilibName TEXT,
    mpiSync REAL[6],
    mpiAsync REAL[6],
    mpiSsend REAL[6],
    networkID INTEGER REFERENCES Network
);
CREATE TABLE NodeSharedMemoryPerf(
    perfOMPCompNodeID SERIAL PRIMARY KEY,
    omplibName TEXT,
    clusterID INTEGER REFERENCES Cluster
);
CREATE TABLE ComputationalNode (
    compNodeID SERIAL PRIMARY KEY,
    hostName TEXT,
    hostAliases TEXT[],
    hostAddresses TEXT[],
    systemModel TEXT,
    physMem TEXT,
    virtMem TEXT,
    numCpu INTEGER,
    cpuType TEXT,
    cpuSpeed TEXT,
    osName TEXT,
    osVersion TEXT,
    hardDiskSize INTEGER,
    dataCacheSize INTEGER[],
    cacheMissPenalty INTEGER[],
    clusterID INTEGER REFERENCES Cluster
);
CREATE TABLE Application (
    applicationID SERIAL PRIMARY KEY,
    name TEXT
);
CREATE TABLE Version (
    versionID SERIAL PRIMARY KEY,
    versionInfo TEXT ,
    applicationID INTEGER NOT NULL REFERENCES Application
);
CREATE TABLE SourceFile (
    sourceFileID SERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    contents TEXT,
    location TEXT,
    versionID INTEGER NOT NULL References Version
);
CREATE TABLE CodeRegion (
    codeRegionID SERIAL PRIMARY KEY,
    startPos_x INTEGER NOT NULL,
    startPos_y INTEGER NOT NULL,
    endPos_x INTEGER NOT NULL,
    endPos_y INTEGER NOT NULL,
    CodeRegionType TEXT,
    CodeRegionUnit TEXT,
    codeRegion INTEGER NOT NULL,
    sourceFileID INTEGER,
    parentCodeRegionID INTEGER REFERENCES CodeRegion
);
CREATE TABLE Experiment (
    experimentID SERIAL PRIMARY KEY,
    info TEXT,
    startTime TIMESTAMP,
    endTime TIMESTAMP,
    commandLine TEXT,
    compiler TEXT,
    compilerOptions TEXT,
    versionID INTEGER NOT NULL REFERENCES Version
);
CREATE TABLE ProcessingUnit (
    puID SERIAL PRIMARY KEY,
    computationalNode TEXT NOT NULL,
    processID INTEGER NOT NULL,
    threadID INTEGER NOT NULL
);
CREATE TABLE RegionSummary (
    regionSummaryID SERIAL PRIMARY KEY,
    computationalNode TEXT NOT NULL,
    processID INTEGER NOT NULL,
    threadID INTEGER NOT NULL,
    codeRegion INTEGER ,
    puID INTEGER REFERENCES ProcessingUnit,
    parentRegion INTEGER,
    codeRegionGroup INTEGER,
    numberCalls INTEGER,
    numberSubs INTEGER,
    codeRegionID INTEGER,
    regionSummaryIDParent INTEGER,
    experimentID INTEGER NOT NULL REFERENCES Experiment
);
CREATE TABLE TimingMetrics (
    name TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    regionSummaryID INTEGER NOT NULL REFERENCES RegionSummary
);
CREATE TABLE HardwareMetrics (
    name TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    regionSummaryID INTEGER NOT NULL REFERENCES RegionSummary
);
CREATE TABLE TemporalOverheadMetrics (
    name TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    regionSummaryID INTEGER NOT NULL REFERENCES RegionSummary
);
