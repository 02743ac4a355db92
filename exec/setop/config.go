package setop

import (
	"errors"

	"github.com/eddysql/eddy/catalog/types"
)

// Kind is the set operation an operator maintains.
type Kind uint8

// The set operations.
const (
	// Intersect outputs a row once if both inputs hold it (INTERSECT
	// [DISTINCT]).
	Intersect Kind = iota
	// IntersectAll outputs a row min(a, b) times (INTERSECT ALL).
	IntersectAll
	// Except outputs a row once if the left input holds it and the right
	// does not (EXCEPT [DISTINCT]).
	Except
	// ExceptAll outputs a row max(a − b, 0) times (EXCEPT ALL).
	ExceptAll
)

// String returns the operation as SQL writes it.
func (k Kind) String() string {
	switch k {
	case Intersect:
		return "INTERSECT"
	case IntersectAll:
		return "INTERSECT ALL"
	case Except:
		return "EXCEPT"
	case ExceptAll:
		return "EXCEPT ALL"
	}
	return "?"
}

// Mult returns the multiplicity in the result of a row held a times by
// the left input and b times by the right. A negative count (a retraction
// that overtook its row) counts as zero.
func (k Kind) Mult(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	switch k {
	case Intersect:
		if a > 0 && b > 0 {
			return 1
		}
	case IntersectAll:
		return min(a, b)
	case Except:
		if a > 0 && b == 0 {
			return 1
		}
	case ExceptAll:
		return max(a-b, 0)
	}
	return 0
}

// Config configures a set operation.
type Config struct {
	Kind Kind
	// Types are the column types of both inputs and of the output.
	Types []types.T
	// Names are the output column names.
	Names []string
}

// validate checks the configuration.
func (c *Config) validate() error {
	switch {
	case len(c.Types) == 0:
		return errors.New("setop: no columns")
	case len(c.Names) != len(c.Types):
		return errors.New("setop: a name for every column is needed")
	case c.Kind > ExceptAll:
		return errors.New("setop: unknown operation")
	}
	return nil
}
