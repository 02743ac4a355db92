package exec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layers of eddy, enforced on every package's imports (as CockroachDB's
// dep_test.go files do):
//
//   - data flows sql → planner → optimizer → exec, and a package imports
//     only earlier stages and the shared lower layers (catalog,
//     planner/plan, storage);
//   - in exec, the contract (package exec) is imported by everything and
//     imports no runtime and no operator; an operator family (exec/agg,
//     exec/join, ...: every direct subdirectory of exec that is not one of
//     the infrastructure packages below) imports neither another family,
//     nor the runtime (exec/dataflow), nor the builder, nor the optimizer;
//     the runtime imports no family, its tests included (benchmarks of
//     real operators in a dataflow belong to exec/build); only the engine
//     imports exec/build; the autoscaling controller (exec/autoscale)
//     imports neither the runtime nor an operator.
const module = "github.com/eddysql/eddy/"

// infrastructure are the direct subdirectories of exec that are not
// operator families.
var infrastructure = []string{"dataflow", "build", "engine", "expr", "exectest", "connector", "internal", "autoscale"}

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// listPackages lists every package of the module with its imports.
func listPackages(t *testing.T) map[string]*listedPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = &p
	}
	return pkgs
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// local returns the module's packages among paths, without the module
// prefix.
func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

// under reports whether pkg is prefix or below it.
func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

// family returns the operator family pkg belongs to ("" if none).
func family(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "exec/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rest, "/")
	if slices.Contains(infrastructure, top) {
		return ""
	}
	return "exec/" + top
}

func TestLayers(t *testing.T) {
	pkgs := listPackages(t)
	check := func(pkg string, imports []string, what string, forbidden func(dep string) bool) {
		for _, dep := range local(imports) {
			if forbidden(dep) {
				t.Errorf("%s %s %s", pkg, what, dep)
			}
		}
	}
	for pkg, p := range pkgs {
		deps := p.Deps
		direct := slices.Concat(p.Imports, p.TestImports, p.XTestImports)
		switch {
		case pkg == "exec":
			check(pkg, deps, "(the contract) depends on", func(d string) bool {
				return family(d) != "" || under(d, "exec/dataflow") || under(d, "exec/build") || under(d, "exec/internal") ||
					under(d, "exec/engine") || under(d, "exec/connector") || under(d, "optimizer")
			})
		case family(pkg) != "":
			check(pkg, deps, "(an operator family) depends on", func(d string) bool {
				return (family(d) != "" && family(d) != family(pkg)) || under(d, "exec/dataflow") || under(d, "exec/build") ||
					under(d, "exec/engine") || under(d, "exec/connector") || under(d, "optimizer")
			})
			check(pkg, direct, "(an operator family) or its tests import", func(d string) bool {
				return (family(d) != "" && family(d) != family(pkg)) || under(d, "exec/dataflow") || under(d, "exec/build")
			})
		case under(pkg, "exec/internal"):
			check(pkg, deps, "(shared by families) depends on", func(d string) bool {
				return family(d) != "" || under(d, "exec/dataflow") || under(d, "exec/build") || under(d, "exec/engine") ||
					under(d, "exec/connector") || under(d, "optimizer")
			})
		case under(pkg, "exec/autoscale"):
			// The controller is fed figures and hands back decisions: it
			// knows no runtime, operator, connector or engine.
			check(pkg, deps, "(the autoscaling controller) depends on", func(d string) bool {
				return family(d) != "" || under(d, "exec/dataflow") || under(d, "exec/build") || under(d, "exec/engine") ||
					under(d, "exec/connector") || under(d, "optimizer")
			})
		case under(pkg, "exec/dataflow"):
			check(pkg, deps, "(the runtime) depends on", func(d string) bool {
				return family(d) != "" || under(d, "exec/build") || under(d, "exec/engine") || under(d, "optimizer")
			})
			check(pkg, direct, "(the runtime) or its tests import", func(d string) bool { return family(d) != "" })
		case under(pkg, "exec/connector"):
			check(pkg, deps, "(a connector) depends on", func(d string) bool {
				return family(d) != "" || under(d, "exec/dataflow") || under(d, "exec/build") || under(d, "exec/engine") ||
					under(d, "optimizer") || (under(d, "planner") && d != "planner/plan")
			})
		}
		if !under(pkg, "exec/engine") && !under(pkg, "exec/build") {
			check(pkg, direct, "imports", func(d string) bool { return under(d, "exec/build") })
		}
		// The stages before exec never reach it, and the lower layers reach
		// no stage. Test-support packages (plantest, opttest, ...) are
		// exempt: they assemble real parts (an evaluator of constants, the
		// connectors' traits) for the goldens of their stage.
		if strings.HasSuffix(pkg, "test") {
			continue
		}
		switch top, _, _ := strings.Cut(pkg, "/"); top {
		case "sql":
			check(pkg, deps, "depends on", func(d string) bool {
				return under(d, "catalog") && d != "catalog/types" || under(d, "planner") || under(d, "optimizer") || under(d, "exec")
			})
		case "planner":
			check(pkg, deps, "depends on", func(d string) bool { return under(d, "optimizer") || under(d, "exec") })
		case "optimizer":
			check(pkg, deps, "depends on", func(d string) bool { return under(d, "exec") })
		case "catalog", "storage":
			check(pkg, deps, "depends on", func(d string) bool {
				return under(d, "sql") || under(d, "planner") || under(d, "optimizer") || under(d, "exec") ||
					(top == "storage" && under(d, "catalog"))
			})
		}
	}
}

// TestFamiliesAreFound guards the classification above: the operator
// families it finds are the packages that implement operators, so a new
// infrastructure package must be added to infrastructure, not mistaken
// for a family (or the reverse).
func TestFamiliesAreFound(t *testing.T) {
	pkgs := listPackages(t)
	var fams []string
	for pkg := range pkgs {
		if f := family(pkg); f == pkg {
			fams = append(fams, f)
		}
	}
	slices.Sort(fams)
	for _, want := range []string{"exec/agg", "exec/basic", "exec/join", "exec/mview", "exec/over", "exec/sessionwin", "exec/tempfilter", "exec/topn", "exec/window"} {
		if !slices.Contains(fams, want) {
			t.Errorf("families %v lack %s", fams, want)
		}
	}
}
