package pg

// SetBeforeAttach sets the hook a bulk load runs before it attaches its
// new partitions (nil: none).
func SetBeforeAttach(f func() error) { beforeAttach = f }

// SetAfterPartitionDrop sets the hook Apply runs after it has dropped the
// partitions of graphs it removes whole (nil: none).
func SetAfterPartitionDrop(f func() error) { afterPartitionDrop = f }
