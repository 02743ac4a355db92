// Package cluster scales eddy out across processes on Kafka, the way
// ksqlDB and Kafka Streams do: processes started with the same cluster
// name and brokers (members) share one catalog and the work of its
// materialized views, with no coordinator of their own.
//
// The catalog travels on a command topic (CommandLog): every DDL
// statement is appended to it, and every member applies every command in
// the topic's order, so all run the same catalog; a member keeps nothing
// on its disk and replays the topic when it starts.
//
// A view's dataflow, planned as for one process, is cut at its exchanges
// (SplitGraph). Each cut exchange becomes a topic (an edge), each piece
// between edges a fragment, which runs as tasks: one per partition of
// what the fragment reads — its Kafka source's partitions, or its edges',
// which have Config.Partitions partitions for keyed work and one for a
// gather. A task is an ordinary dataflow job whose stages run one
// instance each. Fragments hand rows on through their edges (Writer,
// Reader): a hash edge routes each row to the partition owning its key
// group, as the in-process exchange routes it to an instance, so the
// keyed state a task keeps is exactly its partition's key groups. Each
// writer also sends its watermark to every partition, and a reader's
// watermark is the least of its producers'.
//
// Tasks are spread by Kafka's consumer-group protocol: every member joins
// each fragment's group and runs the tasks of the partitions assigned to
// it (tasks.go). A task's checkpoints — its operators' state, its
// sources' positions and its writers' pre-committed transactions — go to
// its partition of the fragment's compacted state topic
// (storage/kafkastate), and what it writes to edges commits in Kafka
// transactions with those checkpoints; readers read committed records
// only. When a member leaves or dies, the group gives its partitions to
// the others within the session timeout: the new owner opens the
// partition's state, which fences the old owner's producers and aborts
// what it left open, and resumes from the last checkpoint. Nothing is
// lost and nothing is counted twice.
//
// A view's rows reach every member: its last fragment writes the view's
// changes to a one-partition topic, and every member runs a replica, the
// view's sink over that topic, so a pull query on any member reads the
// whole view.
package cluster
