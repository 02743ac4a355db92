// Package ordtree holds what the operators over ordered partitions share —
// Top-N and the window aggregates: a row's partition and sort keys,
// encoded so that comparing rows is comparing bytes (Layout, EncodeColumn);
// the counted B+tree that keeps a partition's rows in order with their
// copies, finding a key's rank and the row at a rank in one descent
// (Tree); an operator's partitions by key, with the ones a chunk touches
// (Partitions); and the netting of a chunk's changes per partition (Delta,
// Netter), so an operator touches each changed row once.
package ordtree
