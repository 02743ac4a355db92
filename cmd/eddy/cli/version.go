package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/internal/hugepage"
)

// version is eddy's version, set at link time with
// -ldflags "-X github.com/eddysql/eddy/cmd/eddy/cli.version=v0.1.0".
// Without it, the module version from the build info is used.
var version string

// versionString returns the version: the linked one, the module's, or "devel".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// buildCommit returns the VCS revision the binary was built from, with
// "-dirty" for uncommitted changes, or "" when unknown.
func buildCommit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

// versionCommand is `eddy version`.
func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print eddy's version, Go version and commit",
		Args:  cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(a.out, "eddy %s\n", versionString())
			fmt.Fprintf(a.out, "go   %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if c := buildCommit(); c != "" {
				fmt.Fprintf(a.out, "commit %s\n", c)
			}
			if h := a.heapReserved(); h != (hugepage.HeapReservation{}) {
				fmt.Fprintf(a.out, "%s\n", h)
			}
			return nil
		}),
	}
}
