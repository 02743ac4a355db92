package plan

import (
	"fmt"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// ColumnMeta describes one column of a plan.
type ColumnMeta struct {
	ID       ColumnID
	Name     string // the column's name as users see it (alias or source column)
	Table    string // the table or alias it came from, if any
	Type     types.T
	Nullable bool
	// Object and Ord locate the stored column a scan reads (nil for
	// computed columns), for the cost model's statistics.
	Object *catalog.Object
	Ord    int
}

// Metadata allocates the ColumnIDs of one statement's plan and remembers
// what each denotes. It is shared by the planner and the optimizer for one
// statement and never shrinks.
type Metadata struct {
	cols []ColumnMeta
	// Qualify makes the column references Ref returns display their table
	// (t.c): set once a statement joins, where names alone are ambiguous.
	Qualify bool
}

// NewMetadata returns empty metadata.
func NewMetadata() *Metadata { return &Metadata{} }

// AddColumn allocates a new ColumnID.
func (m *Metadata) AddColumn(name, table string, t types.T, nullable bool) ColumnID {
	id := ColumnID(len(m.cols) + 1)
	m.cols = append(m.cols, ColumnMeta{ID: id, Name: name, Table: table, Type: t, Nullable: nullable})
	return id
}

// Column returns the metadata of id; it panics for an unknown ID (a broken
// invariant: every ID in a plan was allocated here).
func (m *Metadata) Column(id ColumnID) *ColumnMeta {
	if id < 1 || int(id) > len(m.cols) {
		panic(fmt.Sprintf("plan: unknown column ID %d", id))
	}
	return &m.cols[id-1]
}

// NumColumns is the number of IDs allocated so far.
func (m *Metadata) NumColumns() int { return len(m.cols) }

// Ref returns a ColRef expression for id.
func (m *Metadata) Ref(id ColumnID) *ColRef {
	c := m.Column(id)
	name := c.Name
	if m.Qualify && c.Table != "" {
		name = c.Table + "." + name
	}
	return &ColRef{ID: id, Name: name, Typ: c.Type, Null: c.Nullable}
}

// IdentityItems returns the projection items that forward cols unchanged,
// each under its own ID and in order.
func (m *Metadata) IdentityItems(cols ColList) []ProjItem {
	items := make([]ProjItem, len(cols))
	for i, id := range cols {
		items[i] = ProjItem{ID: id, Expr: m.Ref(id)}
	}
	return items
}
