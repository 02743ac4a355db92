// Package deps pins the project's dependencies while the packages that use
// them are being written; it is deleted once every dependency has a real
// importer.
package deps

import (
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/dgraph-io/badger/v4"
	_ "github.com/peterh/liner"
	_ "github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
	_ "github.com/spf13/cobra"
)
