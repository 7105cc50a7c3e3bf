package pg

import "github.com/perfkb/perfkb/kb"

// SetBeforeAttach sets the hook a bulk load runs before it attaches its
// new partitions (nil: none).
func SetBeforeAttach(f func() error) { beforeAttach = f }

// SetAfterPartitionDrop sets the hook Apply runs after it has dropped the
// partitions of graphs it removes whole (nil: none).
func SetAfterPartitionDrop(f func() error) { afterPartitionDrop = f }

// SetForcedOrder makes the aggregate and path-count statements join their
// BGP's patterns in the order f returns (nil: PostgreSQL's own) instead
// of joinOrder's; SetForcedOrder(nil) restores joinOrder.
func SetForcedOrder(f func(q kb.BGP) []int) { forcedOrder = f }

// PredStat is a predicate's statistics for JoinOrder.
type PredStat = predStat

// NewPredStat is the statistics of a predicate with n quads, their
// distinct subjects and objects.
func NewPredStat(n, subjects, objects int64) PredStat {
	return predStat{n: n, subjects: subjects, objects: objects}
}

// JoinOrder is joinOrder.
func JoinOrder(q kb.BGP, st map[int64]PredStat) []int { return joinOrder(q, orderStats{preds: st}) }

// HashFavoured is hashFavoured over the order joinOrder picks, with the
// exact counts of the patterns' constants in consts (by pattern index).
func HashFavoured(q kb.BGP, st map[int64]PredStat, consts map[int]int64) ([]int, bool) {
	ost := orderStats{preds: st, consts: consts}
	order := joinOrder(q, ost)
	return order, hashFavoured(q, ost, order)
}
