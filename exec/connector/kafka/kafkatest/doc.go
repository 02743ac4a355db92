// Package kafkatest holds helpers for tests that read what eddy wrote to
// a Kafka cluster (an in-process kfake one in eddy's tests).
package kafkatest
