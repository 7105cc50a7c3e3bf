package rdfio

// ChunkSize returns o with the line loader's chunk size set to n bytes, so
// that the external tests can cut an input into many tiny chunks.
func ChunkSize(o LoadOptions, n int) LoadOptions {
	o.chunkSize = n
	return o
}
