// Package kafka is the `kafka` source and sink connector, on franz-go
// (kgo for clients, kadm for metadata and offsets).
//
// A stream
//
//	CREATE STREAM bids (auction BIGINT, price BIGINT, p INT)
//	WITH (connector = 'kafka', brokers = 'localhost:9092', topic = 'bids',
//	      format = 'json', partition_column = 'p');
//
// becomes a Source per instance of its scan (Connector.Open): instance i
// of P reads the partitions p with p mod P = i, from the offsets its
// startup option gives or the ones a checkpoint recorded (Source is
// exec.Positioned; no consumer group is joined). Message values are
// decoded by the file connector's decoder (file.Decoder: JSON objects or
// CSV records) or read whole (raw); metadata columns hold the key,
// partition, offset, timestamp or headers. The changelog formats
// (upsert-json, debezium-json) read into a table: their chunks carry
// inserts and deletes, which the table's primary key turns into its
// latest rows. A bad message is skipped,
// counted and reported by topic[partition]@offset, or stops the source
// with on_error = 'fail'. A snapshot (a pull query) reads up to the end
// offsets as of Open; a continuous source reports exec.ErrCaughtUp only
// when it has read up to the end offsets the brokers report then, so
// FLUSH covers what the topic held when it was asked.
//
// The sink (SinkConnector, Sink) writes a message per row, keyed by its
// key_column: upserts and tombstones for an updating query. In a
// checkpointed query it is an exec.Committer writing in Kafka
// transactions committed with the checkpoints (sink_txn.go says how).
package kafka
