package tpch_test

import (
	"os"
	"testing"
)

// tempDir holds the generated data, which the package's tests share.
var tempDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "eddy-tpch-")
	if err != nil {
		panic(err)
	}
	tempDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mkTemp returns the directory for the generated data.
func mkTemp() (string, error) { return tempDir, nil }
