package pg

// SetBeforeAttach sets the hook a bulk load runs before it attaches its
// new partitions (nil: none).
func SetBeforeAttach(f func() error) { beforeAttach = f }
