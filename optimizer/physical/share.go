package physical

import (
	"reflect"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
)

// Sub-plans shared within a query. A query that uses the same sub-plan in
// two places — q5 counts the bids of each auction per window once for the
// join and again for the maximum the join compares them with; a CTE read
// twice; a self-join of a filtered stream — computes it once and sends its
// output to both places. Each place reads it through its own exchange,
// with its own distribution and keys and the columns it wants
// (Exchange.Project); the runtime sends the sub-plan's stage's output to
// every exchange (dataflow's fanout). The plan becomes a DAG: the shared
// node is the input of each of those exchanges.
//
// The pass runs on the finished physical plan. A sub-plan is shared when
// it sits below an exchange in each place (so its stage ends with it)
// and the two are the same operators with the same configuration, bottom
// up, down to their sources (sameNode). A projection that only picks and
// renames columns above it (a Calc without a filter whose every output is
// an input column) moves into the exchange, since each place may want
// other columns of it. Sharing is off in a cluster, whose fragments each
// feed one exchange, and with the optimizer off.

// ShareSubplans returns root with every sub-plan that it computes in
// several places computed once (see above), and the scans of a stream that
// differ only in their columns merged (mergescans.go). It changes root in
// place.
func ShareSubplans(root Node) Node {
	type site struct {
		ex   *Exchange
		node Node  // the exchange's input, below the projections peeled
		proj []int // the projections' columns of node (nil: node's own)
	}
	var sites []*site
	var visit func(n Node)
	visit = func(n Node) {
		if ex, ok := n.(*Exchange); ok {
			node, proj := peelProjection(ex.Inputs[0])
			for _, s := range sites {
				if !sameNode(s.node, node) {
					continue
				}
				// Both exchanges read s.node, each through its own
				// projection.
				if s.ex.Inputs[0] != s.node {
					s.ex.Inputs[0], s.ex.Project = s.node, s.proj
				}
				ex.Inputs[0], ex.Project = s.node, proj
				return
			}
			sites = append(sites, &site{ex: ex, node: node, proj: proj})
		}
		for _, in := range n.Hdr().Inputs {
			visit(in)
		}
	}
	visit(root)
	mergeScans(root)
	return root
}

// peelProjection returns n below the Calcs at its top that only pick
// columns of their input, and the columns of what it returns that they
// pick, in order (nil when it peels none).
func peelProjection(n Node) (Node, []int) {
	var proj []int
	for {
		c, ok := n.(*Calc)
		if !ok || c.Filter != nil {
			return n, proj
		}
		ords := make([]int, len(c.Projs))
		for i, e := range c.Projs {
			ref, ok := e.(*plan.InputRef)
			if !ok {
				return n, proj
			}
			ords[i] = ref.Ord
		}
		if proj != nil {
			for i, k := range proj {
				proj[i] = ords[k]
			}
		} else {
			proj = ords
		}
		n = c.Inputs[0]
	}
}

// sameNode reports whether a and b compute the same rows: the same
// operator with the same configuration over the same inputs, down to
// their sources. Only what a node is planned to do counts, not its place
// in the plan: its ID, estimates and the decisions that chose it. Any
// other difference (a column's name, a join's ordinal) makes them differ,
// which errs only toward sharing less.
func sameNode(a, b Node) bool {
	if a == b {
		return true
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer {
		return false
	}
	ha, hb := a.Hdr(), b.Hdr()
	if ha.Parallelism != hb.Parallelism || len(ha.Inputs) != len(hb.Inputs) || !sameValue(reflect.ValueOf(ha.Cols), reflect.ValueOf(hb.Cols)) {
		return false
	}
	for i := range ha.Inputs {
		if !sameNode(ha.Inputs[i], hb.Inputs[i]) {
			return false
		}
	}
	// The rest of the node, its header left out.
	ca, cb := reflect.New(va.Elem().Type()).Elem(), reflect.New(vb.Elem().Type()).Elem()
	ca.Set(va.Elem())
	cb.Set(vb.Elem())
	zero := reflect.Zero(reflect.TypeFor[Header]())
	ca.FieldByName("Header").Set(zero)
	cb.FieldByName("Header").Set(zero)
	return sameValue(ca, cb)
}

var (
	posType    = reflect.TypeFor[plan.Pos]()
	objectType = reflect.TypeFor[*catalog.Object]()
)

// sameValue reports whether a and b hold the same value, as
// reflect.DeepEqual does, but for the positions in the query's text that
// expressions keep for their errors (plan.Pos), which differ between the
// places that compute the same thing; catalog objects are the same when
// their IDs are. Functions are the same only when both are nil.
func sameValue(a, b reflect.Value) bool {
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() || a.Pointer() == b.Pointer() {
			return a.Pointer() == b.Pointer()
		}
		if a.Type() == objectType {
			return a.Elem().FieldByName("ID").Uint() == b.Elem().FieldByName("ID").Uint()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).Type != posType && !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for it := a.MapRange(); it.Next(); {
			v := b.MapIndex(it.Key())
			if !v.IsValid() || !sameValue(it.Value(), v) {
				return false
			}
		}
		return true
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	case reflect.Complex64, reflect.Complex128:
		return a.Complex() == b.Complex()
	case reflect.String:
		return a.String() == b.String()
	}
	return false // functions, channels, unsafe pointers
}

// Shared returns how many exchanges read each node of the plan under
// root that more than one reads (ShareSubplans).
func Shared(root Node) map[Node]int {
	parents := map[Node]int{}
	eachNode(root, func(n Node) {
		for _, in := range n.Hdr().Inputs {
			parents[in]++
		}
	})
	for n, k := range parents {
		if k < 2 {
			delete(parents, n)
		}
	}
	return parents
}

// eachNode calls fn for every node of the plan under root once, a shared
// sub-plan included, inputs before the nodes that read them.
func eachNode(root Node, fn func(Node)) {
	seen := map[Node]bool{}
	var walk func(n Node)
	walk = func(n Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Hdr().Inputs {
			walk(in)
		}
		fn(n)
	}
	walk(root)
}
