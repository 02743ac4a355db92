// Command eddy is the eddy streaming SQL engine: an interactive shell, a
// script runner and a sqllogictest runner over one engine.
package main

import (
	"context"
	"os"

	"github.com/eddysql/eddy/cmd/eddy/cli"
)

func main() {
	os.Exit(cli.MainProcess(context.Background(), os.Args[1:], cli.StdIO()))
}
